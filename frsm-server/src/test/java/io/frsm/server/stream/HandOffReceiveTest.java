package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.CellKind;
import io.frsm.cell.Key;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.transport.HandOffShipments;
import io.frsm.transport.proto.HandOffChunk;
import io.frsm.transport.proto.StreamEnvelope;
import io.frsm.transport.stream.StreamWire;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The successor's side of a hand-off shipment on a stream connection (docs/formats/streaming.md
 * "Hand-off shipments"): chunks put together, the shipment handed to the core and acknowledged; a
 * malformed chunk or a shipment beyond the node's receive budget refused with a StreamError and a
 * closed connection; and whatever happens, nothing of the budget stays reserved.
 */
class HandOffReceiveTest {
  @TempDir Path tmp;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private final List<HandOffShipment> imported = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void aShipmentInChunks_reachesTheCore_andIsAcknowledged() throws Exception {
    HandOffDesk desk = desk(1 << 20);
    HandOffShipment s = shipment(300);
    List<HandOffChunk> chunks = HandOffShipments.chunks(s, 2_000);
    assertTrue(chunks.size() > 3);
    EmbeddedChannel ch = channel(desk);
    for (HandOffChunk c : chunks) {
      send(ch, StreamWire.envelope("c1", 2).setHandOffChunk(c).build());
    }
    StreamEnvelope answer = next(ch);
    assertTrue(answer.getHandOffImported().getImported(), answer.toString());
    assertEquals(s.term(), answer.getHandOffImported().getTerm());
    assertEquals(List.of(s), imported);
    assertEquals(0, desk.receiving());
    ch.finishAndReleaseAll();
  }

  @Test
  void aShipmentBeyondTheReceiveBudget_isRefused_andHoldsNothing() throws Exception {
    HandOffDesk desk = desk(3_000);
    List<HandOffChunk> chunks = HandOffShipments.chunks(shipment(300), 2_000);
    EmbeddedChannel ch = channel(desk);
    for (HandOffChunk c : chunks) {
      if (!ch.isOpen()) {
        break; // refused: the rest never arrives
      }
      send(ch, StreamWire.envelope("c1", 2).setHandOffChunk(c).build());
    }
    assertRefused(ch, "exceed the node's budget");
    assertEquals(List.of(), imported);
    assertEquals(0, desk.receiving());
  }

  @Test
  void aChunkFailingItsChecksum_isRefused_andHoldsNothing() throws Exception {
    HandOffDesk desk = desk(1 << 20);
    List<HandOffChunk> chunks = HandOffShipments.chunks(shipment(300), 2_000);
    EmbeddedChannel ch = channel(desk);
    send(ch, StreamWire.envelope("c1", 2).setHandOffChunk(chunks.get(0)).build());
    HandOffChunk bad = chunks.get(1).toBuilder().setCrc32C(chunks.get(1).getCrc32C() ^ 1).build();
    send(ch, StreamWire.envelope("c1", 2).setHandOffChunk(bad).build());
    assertRefused(ch, "fails its CRC32C");
    assertEquals(0, desk.receiving());
  }

  @Test
  void aConnectionClosedHalfWay_holdsNothing() throws Exception {
    HandOffDesk desk = desk(1 << 20);
    List<HandOffChunk> chunks = HandOffShipments.chunks(shipment(300), 2_000);
    EmbeddedChannel ch = channel(desk);
    send(ch, StreamWire.envelope("c1", 2).setHandOffChunk(chunks.get(0)).build());
    assertTrue(desk.receiving() > 0);
    ch.close();
    ch.runPendingTasks();
    assertEquals(0, desk.receiving());
    ch.finishAndReleaseAll();
  }

  private HandOffDesk desk(long budget) {
    HandOffDesk desk = new HandOffDesk(null, budget);
    desk.importTo(
        (from, s) -> {
          imported.add(s);
          return true;
        });
    return desk;
  }

  private EmbeddedChannel channel(HandOffDesk desk) {
    StreamSource source =
        new StreamSource(
            new StreamSource.SourceContext(
                1,
                "c1",
                ChannelSecurity.plaintext(),
                new SnapshotStore(tmp, (f, l, d) -> List.of(), 60_000, System::currentTimeMillis),
                StreamSettings.defaults(),
                Throttle.unlimited(),
                ChunkFaults.none(),
                new StreamMetrics(new SimpleMeterRegistry()),
                executor,
                desk));
    EmbeddedChannel ch = new EmbeddedChannel();
    source.accept(ch, null);
    return ch;
  }

  private static void send(EmbeddedChannel ch, StreamEnvelope e) {
    byte[] b = e.toByteArray();
    ByteBuf out = Unpooled.buffer().writeInt(b.length).writeBytes(b);
    ch.writeInbound(out);
  }

  private static StreamEnvelope next(EmbeddedChannel ch) throws Exception {
    ch.runPendingTasks();
    ByteBuf b = ch.readOutbound();
    try {
      int length = b.readInt();
      byte[] body = new byte[length];
      b.readBytes(body);
      return StreamEnvelope.parseFrom(body);
    } finally {
      b.release();
    }
  }

  private static void assertRefused(EmbeddedChannel ch, String reason) throws Exception {
    StreamEnvelope e = next(ch);
    assertTrue(e.hasError(), e.toString());
    assertTrue(e.getError().getMessage().contains(reason), e.getError().getMessage());
    ch.runPendingTasks();
    assertFalse(ch.isOpen(), "closed after " + reason);
    ch.finishAndReleaseAll();
  }

  private static HandOffShipment shipment(int keys) {
    TreeMap<Key, AcceptedValue> sorted = new TreeMap<>();
    for (int i = 0; sorted.size() < keys; i++) {
      sorted.put(
          Key.wrap(("k" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          AcceptedValue.of(
              1, 1 + i, new Ballot(1, 2, 0), CellKind.LIVE, new byte[] {(byte) i}, true));
    }
    List<HandOffShipment.Entry> entries = new ArrayList<>();
    sorted.forEach((k, v) -> entries.add(new HandOffShipment.Entry(k, v)));
    return new HandOffShipment(2, 7, entries);
  }
}
