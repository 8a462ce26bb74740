package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static io.frsm.transport.WireTesting.frame;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.FrameEncoder;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RoundId;
import io.frsm.transport.proto.PeerEnvelope;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The frame codec on an {@link EmbeddedChannel}: exact bytes, splitting, and bad frames. */
class FrameCodecTest {
  private final PeerCodec codec = new PeerCodec(CLUSTER);

  private static final Message.Prepare PREPARE =
      new Message.Prepare(
          Key.of("k1".getBytes(StandardCharsets.US_ASCII)),
          new RoundId(2, 1, 7),
          new Ballot(1000, 2, 1));

  /** The worked example of docs/formats/wire.md: change both together, never one. */
  static final String PREPARE_FRAME_HEX =
      "00000029" // length 41
          + "0801" // field 1 protocol_version: 1
          + "120c746573742d636c7573746572" // field 2 cluster_id: 12 bytes "test-cluster"
          + "1802" // field 3 sender_node_id: 2
          + "5215" // field 10 prepare: 21 bytes
          + "0a026b31" // . field 1 key: 2 bytes "k1"
          + "1206080210011807" // . field 2 round: 6 bytes (node_id 2, boot 1, sequence 7)
          + "1a0708e80710021801"; // . field 3 ballot: 7 bytes (round 1000, node_id 2, boot 1)

  private EmbeddedChannel inbound() {
    return new EmbeddedChannel(new FrameDecoder(1024, codec));
  }

  @Test
  void encoding_isFrozen() {
    EmbeddedChannel ch = new EmbeddedChannel(FrameEncoder.INSTANCE);
    assertTrue(ch.writeOutbound(codec.encode(2, PREPARE)));
    ByteBuf out = ch.readOutbound();
    try {
      byte[] bytes = new byte[out.readableBytes()];
      out.readBytes(bytes);
      assertEquals(PREPARE_FRAME_HEX, HexFormat.of().formatHex(bytes));
    } finally {
      out.release();
    }
    assertFalse(ch.finish());
  }

  @Test
  void encoding_isFrozen_forTheWrittenEnvelopeToo() {
    EmbeddedChannel ch = new EmbeddedChannel(FrameEncoder.INSTANCE);
    assertTrue(
        ch.writeOutbound(
            FrsmPeerWireCodec.INSTANCE
                .encoder(io.frsm.client.transport.WireFormat.PROTOCOL_VERSION, CLUSTER, 2)
                .encode(PREPARE)));
    ByteBuf out = ch.readOutbound();
    try {
      assertEquals(PREPARE_FRAME_HEX, HexFormat.of().formatHex(ByteBufUtil.getBytes(out)));
    } finally {
      out.release();
    }
    assertFalse(ch.finish());
  }

  /**
   * Small and large envelopes (staged in the encoder's per-thread array or not, either side of its
   * cap), into direct and heap buffers: the frame is the length and the envelope's own bytes.
   */
  @Test
  void encoder_writesEveryEnvelopeWhole_intoDirectAndHeapBuffers() {
    ByteBufAllocator heapOnly =
        new AbstractByteBufAllocator(false) {
          @Override
          protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
          }

          @Override
          protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
          }

          @Override
          public boolean isDirectBufferPooled() {
            return false;
          }
        };
    for (ByteBufAllocator allocator : new ByteBufAllocator[] {ByteBufAllocator.DEFAULT, heapOnly}) {
      EmbeddedChannel ch = new EmbeddedChannel(FrameEncoder.INSTANCE);
      ch.config().setAllocator(allocator);
      for (int valueBytes : new int[] {0, 1, 1000, 64 * 1024 - 200, 64 * 1024, 300 * 1024}) {
        for (int round = 0; round < 2; round++) { // the second reuses the staging array
          byte[] value = new byte[valueBytes];
          new java.util.Random(valueBytes + round).nextBytes(value);
          Message commit =
              new Message.Commit(
                  Key.of(new byte[] {7}),
                  io.frsm.cell.AcceptedValue.live(3, 4, new Ballot(9, 1, 1), value, true, null));
          PeerEnvelope envelope = codec.encode(1, commit);
          assertTrue(ch.writeOutbound(envelope));
          ByteBuf out = ch.readOutbound();
          try {
            assertArrayEquals(frame(envelope), ByteBufUtil.getBytes(out), valueBytes + " bytes");
          } finally {
            out.release();
          }
        }
      }
      assertFalse(ch.finish());
    }
  }

  @Test
  void frame_decodesToRecord_whateverTheSplit() {
    byte[] bytes = HexFormat.of().parseHex(PREPARE_FRAME_HEX + PREPARE_FRAME_HEX);
    for (int split = 0; split <= bytes.length; split++) {
      EmbeddedChannel ch = inbound();
      ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, 0, split)));
      ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, split, bytes.length)));
      for (int i = 0; i < 2; i++) {
        SenderFrame<Message> frame = ch.readInbound();
        assertEquals(new SenderFrame<>(2, PREPARE), frame, "split at " + split);
      }
      assertNull(ch.readInbound());
      assertTrue(ch.isActive());
      assertFalse(ch.finish());
    }
  }

  @Test
  void oversizedLengthPrefix_closesConnection_withoutWaitingForTheBody() {
    EmbeddedChannel ch = inbound();
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x00, 0x00, 0x04, 0x01, 1, 2, 3}));
    assertFalse(ch.isActive());
    assertNull(ch.readInbound());
  }

  @Test
  void negativeLengthPrefix_closesConnection() {
    EmbeddedChannel ch = inbound();
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xff, 0, 0, 0}));
    assertFalse(ch.isActive());
  }

  @Test
  void malformedProtobuf_closesConnection_andLaterFramesAreNotDecoded() {
    EmbeddedChannel ch = inbound();
    byte[] garbage = {0, 0, 0, 3, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    byte[] good = frame(codec.encode(2, PREPARE));
    byte[] both = Arrays.copyOf(garbage, garbage.length + good.length);
    System.arraycopy(good, 0, both, garbage.length, good.length);
    ch.writeInbound(Unpooled.wrappedBuffer(both));
    assertFalse(ch.isActive());
    assertNull(ch.readInbound());
  }

  @Test
  void wrongClusterId_closesConnection() {
    EmbeddedChannel ch = inbound();
    PeerEnvelope foreign = new PeerCodec("other").encode(2, PREPARE);
    ch.writeInbound(Unpooled.wrappedBuffer(frame(foreign)));
    assertFalse(ch.isActive());
    assertNull(ch.readInbound());
  }

  @Test
  void truncatedFrameThenClose_deliversNothing() {
    EmbeddedChannel ch = inbound();
    byte[] good = frame(codec.encode(2, PREPARE));
    ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOf(good, good.length - 3)));
    assertNull(ch.readInbound());
    assertFalse(ch.finish()); // close: the partial frame is dropped (and logged), not decoded
  }

  @Test
  void encodedFrame_decodesBack() {
    EmbeddedChannel out = new EmbeddedChannel(FrameEncoder.INSTANCE);
    EmbeddedChannel in = inbound();
    for (long seed = 0; seed < 200; seed++) {
      Message m = new RandomWire(seed).message();
      out.writeOutbound(codec.encode(5, m));
      ByteBuf bytes = out.readOutbound();
      in.writeInbound(bytes); // the decoder releases it
      assertEquals(new SenderFrame<>(5, m), in.readInbound());
    }
    assertFalse(out.finish());
    assertFalse(in.finish());
  }

  @Test
  void exampleBytes_matchTheDocumentedFields() {
    byte[] bytes = HexFormat.of().parseHex(PREPARE_FRAME_HEX);
    assertArrayEquals(frame(codec.encode(2, PREPARE)), bytes);
  }
}
