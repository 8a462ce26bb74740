package io.frsm.transport.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ConnectionPreamble;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peer port tells a peer connection from a stream by its first bytes. */
class ConnectionKindSnifferTest {
  private final List<String> peerBytes = new ArrayList<>();
  private final List<String> streamBytes = new ArrayList<>();
  private int accepted;

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline()
        .addLast(
            ConnectionPreamble.Sniffer.NAME,
            new ConnectionPreamble.Sniffer(
                StreamWire.preamble(),
                c -> {
                  accepted++;
                  c.pipeline().addLast("stream", new Recorder(streamBytes));
                },
                List.of("peer-frames", "peer-in")))
        .addLast("peer-frames", new Recorder(peerBytes))
        .addLast("peer-in", new ChannelInboundHandlerAdapter());
    return ch;
  }

  private static ByteBuf bytes(byte[]... parts) {
    ByteBuf b = Unpooled.buffer();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b;
  }

  @Test
  void peerFrame_goesToThePeerProtocolUnchanged() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(bytes(new byte[] {0, 0, 0, 2, 'h', 'i'}));
    assertEquals(List.of("\0\0\0\2hi"), peerBytes);
    assertEquals(0, accepted);
    assertNull(ch.pipeline().get(ConnectionPreamble.Sniffer.NAME));
    assertTrue(ch.isOpen());
  }

  @Test
  void preamble_handsTheConnectionToTheStreamProtocol_evenSplitAcrossReads() {
    EmbeddedChannel ch = channel();
    byte[] preamble = StreamWire.preamble();
    ch.writeInbound(bytes(new byte[] {preamble[0], preamble[1], preamble[2]}));
    assertEquals(0, accepted, "waits for the whole preamble");
    byte[] rest = new byte[preamble.length - 3];
    System.arraycopy(preamble, 3, rest, 0, rest.length);
    ch.writeInbound(bytes(rest, "after".getBytes(StandardCharsets.US_ASCII)));
    assertEquals(1, accepted);
    assertEquals(List.of("after"), streamBytes, "the bytes after the preamble");
    assertTrue(peerBytes.isEmpty());
    assertNull(ch.pipeline().get("peer-frames"));
    assertNull(ch.pipeline().get("peer-in"));
    assertNotNull(ch.pipeline().get("stream"));
    assertTrue(ch.isOpen());
  }

  @Test
  void highBitWithoutThePreamble_closesTheConnection() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(bytes(new byte[] {(byte) 0xFE, 'S', 'T', 'R', 'X'}));
    assertFalse(ch.isOpen());
    assertEquals(0, accepted);
    assertTrue(peerBytes.isEmpty());
  }

  private static final class Recorder extends ChannelInboundHandlerAdapter {
    private final List<String> seen;

    Recorder(List<String> seen) {
      this.seen = seen;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      seen.add(b.toString(StandardCharsets.ISO_8859_1));
      b.release();
    }
  }
}
