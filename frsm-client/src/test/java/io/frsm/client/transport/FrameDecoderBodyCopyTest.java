package io.frsm.client.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The body array {@link FrameDecoder} reuses across frames for a reader that keeps no share of
 * them: what such a reader copies survives the next frame; a reader that keeps shares (the default)
 * gets an array per frame; a body above the cap gets its own array even for a reader that opted in.
 */
class FrameDecoderBodyCopyTest {

  /** Reads a frame of one bytes field (field 1): copied out, or the parsed (aliased) share kept. */
  private record OneField(boolean copies, boolean optsIn) implements FrameDecoder.EnvelopeReader {
    @Override
    public Object read(CodedInputStream in) throws WireDecodeException {
      try {
        in.readTag();
        ByteString field = in.readBytes();
        return copies ? field.toByteArray() : field;
      } catch (IOException e) {
        throw new WireDecodeException(e.getMessage(), e);
      }
    }

    @Override
    public boolean keepsNoShareOfFrames() {
      return optsIn;
    }
  }

  /** A frame (length prefix, body) holding {@code value} as field 1, in a direct buffer. */
  private static ByteBuf frame(byte[] value) throws IOException {
    int bodyBytes = CodedOutputStream.computeBytesSize(1, ByteString.copyFrom(value));
    byte[] body = new byte[bodyBytes];
    CodedOutputStream out = CodedOutputStream.newInstance(body);
    out.writeBytes(1, ByteString.copyFrom(value));
    out.flush();
    ByteBuf frame = Unpooled.directBuffer(4 + bodyBytes);
    frame.writeInt(bodyBytes).writeBytes(body);
    return frame;
  }

  private static byte[] filled(int length, int b) {
    byte[] value = new byte[length];
    Arrays.fill(value, (byte) b);
    return value;
  }

  /** Decodes two frames of the same length and different bytes; the two records, in order. */
  private static Object[] decodeTwo(OneField reader, int length) throws IOException {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20, reader));
    ch.writeInbound(frame(filled(length, 1)));
    Object first = ch.readInbound();
    ch.writeInbound(frame(filled(length, 2)));
    Object second = ch.readInbound();
    assertFalse(ch.finish());
    return new Object[] {first, second};
  }

  @Test
  void aReaderThatCopies_keepsEachFramesBytes_acrossTheReusedArray() throws IOException {
    Object[] got = decodeTwo(new OneField(true, true), 600);
    assertArrayEquals(filled(600, 1), (byte[]) got[0]);
    assertArrayEquals(filled(600, 2), (byte[]) got[1]);
  }

  @Test
  void theArrayIsReused_soAShareKeptByAReaderThatOptedIn_seesTheNextFrame() throws IOException {
    // The hazard the opt-in promises away, shown: the cut is real, and only for readers that copy.
    Object[] got = decodeTwo(new OneField(false, true), 600);
    assertEquals(ByteString.copyFrom(filled(600, 2)), got[0]);
  }

  @Test
  void aReaderThatKeepsShares_getsAnArrayPerFrame() throws IOException {
    Object[] got = decodeTwo(new OneField(false, false), 600);
    assertEquals(ByteString.copyFrom(filled(600, 1)), got[0]);
    assertEquals(ByteString.copyFrom(filled(600, 2)), got[1]);
  }

  @Test
  void aBodyAboveTheCap_getsAnArrayOfItsOwn() throws IOException {
    int length = FrameDecoder.REUSED_BODY_MAX_BYTES + 1;
    Object[] got = decodeTwo(new OneField(false, true), length);
    assertEquals(ByteString.copyFrom(filled(length, 1)), got[0]);
    assertNotEquals(got[0], got[1]);
  }
}
