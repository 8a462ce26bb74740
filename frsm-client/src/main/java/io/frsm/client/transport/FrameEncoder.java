package io.frsm.client.transport;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;

/**
 * The outbound edge: writes one protobuf envelope as a length-prefixed frame (see {@link
 * FrameDecoder}) into a buffer sized exactly for it. Senders check the size limit before they queue
 * a frame, so this never sees an oversized one.
 *
 * <p>protobuf writes into an array without a view or a wrapper per frame; into a direct buffer it
 * needs a {@code ByteBuffer} view of the buffer, which its encoder duplicates once more (three
 * objects per frame sent, about 5% of the bytes a node allocated in a JFR profile). So the envelope
 * is written into a heap buffer's own array where the buffer has one, and otherwise, up to {@link
 * #STAGED_MAX_BYTES}, into an array per thread that is then copied into the buffer; only larger
 * frames take the view.
 */
@Sharable
public final class FrameEncoder extends MessageToByteEncoder<MessageLite> {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  /** The largest envelope staged in the per-thread array; bounds what each thread keeps. */
  static final int STAGED_MAX_BYTES = 64 * 1024;

  /**
   * Per thread (a channel encodes on its event loop's thread): the array an envelope is written
   * into before it is copied into a direct buffer. Safe to reuse: one envelope is written and
   * copied within {@link #encode}, and writing an envelope encodes nothing else.
   */
  private static final FastThreadLocal<byte[]> STAGING =
      new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
          return new byte[1024];
        }
      };

  private FrameEncoder() {
    super(MessageLite.class);
  }

  @Override
  protected ByteBuf allocateBuffer(
      ChannelHandlerContext ctx, MessageLite msg, boolean preferDirect) {
    int size = WireFormat.LENGTH_PREFIX_BYTES + msg.getSerializedSize();
    return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, MessageLite msg, ByteBuf out)
      throws IOException {
    int length = msg.getSerializedSize();
    out.writeInt(length);
    out.ensureWritable(length);
    int index = out.writerIndex();
    if (out.hasArray()) {
      write(msg, out.array(), out.arrayOffset() + index, length);
    } else if (length <= STAGED_MAX_BYTES) {
      byte[] staging = staging(length);
      write(msg, staging, 0, length);
      out.setBytes(index, staging, 0, length);
    } else {
      CodedOutputStream coded = CodedOutputStream.newInstance(out.nioBuffer(index, length));
      msg.writeTo(coded);
      coded.checkNoSpaceLeft();
    }
    out.writerIndex(index + length);
  }

  private static void write(MessageLite msg, byte[] array, int offset, int length)
      throws IOException {
    CodedOutputStream coded = CodedOutputStream.newInstance(array, offset, length);
    msg.writeTo(coded);
    coded.checkNoSpaceLeft();
  }

  /** This thread's staging array, grown (by doubling, up to the cap) to hold {@code length}. */
  private static byte[] staging(int length) {
    byte[] staging = STAGING.get();
    if (staging.length < length) {
      staging = new byte[Math.min(STAGED_MAX_BYTES, Integer.highestOneBit(length - 1) << 1)];
      STAGING.set(staging);
    }
    return staging;
  }
}
