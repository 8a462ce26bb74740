package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range streaming between two nodes over real loopback connections (docs/formats/streaming.md): a
 * copy over mutual TLS with every cell checked after import, a wrapping range, a corrupted chunk
 * asked again, a chunk that never arrives intact, a full disk, a sender and a receiver killed
 * mid-stream and resumed, and a cancel that stops both sides.
 */
class RangeStreamIT {
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path tmp;

  @Test
  void copy_overMutualTls_importsEveryCellOfTheRange() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, true);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      int keys = 100_000;
      source.writeChosen(keys, 100);
      long from = -(1L << 62);
      long to = 1L << 62;
      receiver.streams.copy(1, from, to).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

      int inRange = assertCopied(receiver, keys, 100, from, to);
      assertTrue(inRange > keys / 3, "the range holds about half the keys: " + inRange);
      assertTrue(receiver.counter("frsm.stream.bytes.received") > inRange * 100.0);
      assertTrue(receiver.counter("frsm.stream.files.received") >= 1);
      assertEquals(0.0, receiver.counter("frsm.stream.chunk.retries"));
      assertEquals(1.0, receiver.counter("frsm.stream.copies.completed"));
      assertEquals(
          receiver.counter("frsm.stream.bytes.received"), source.counter("frsm.stream.bytes.sent"));
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
      await(
          () -> isEmpty(source.dataDirectory.resolve(RangeStreams.SNAPSHOTS)), "snapshot released");
    }
  }

  @Test
  void copy_ofAWrappingRange_importsBothEnds() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      source.writeChosen(5_000, 40);
      long from = 1L << 61;
      long to = -(1L << 61);
      receiver.streams.copy(1, from, to).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertCopied(receiver, 5_000, 40, from, to);
    }
  }

  /**
   * A range the source holds no table of is a manifest of no files: the copy ends at once, having
   * imported nothing. (It once waited for a chunk that could never come, so a learner of an empty
   * range never finished its copy and the membership change stalled.)
   */
  @Test
  void copy_ofARangeWithoutTables_endsAtOnce() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      receiver.streams.copy(1, -(1L << 62), 1L << 62).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertEquals(0.0, receiver.counter("frsm.stream.bytes.received"), "nothing to send");
      assertEquals(1.0, receiver.counter("frsm.stream.copies.completed"));
    }
  }

  @Test
  void corruptedChunk_isDetectedAndSentAgain() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    int[] damaged = {0};
    ChunkFaults flipOnce =
        (name, offset, data) -> {
          if (offset == 64 * 1024 && damaged[0]++ == 0) {
            data[17] ^= 0x40;
          }
          return data;
        };
    StreamSettings small = StreamSettings.defaults().withChunkBytes(64 * 1024);
    try (StreamTestNode source = cluster.start(1, small, p -> withFaults(p, flipOnce));
        StreamTestNode receiver = cluster.start(2, small, p -> p)) {
      source.writeChosen(20_000, 50);
      receiver.streams.copy(1, 0, 0).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertCopied(receiver, 20_000, 50, 0, 0);
      assertEquals(1.0, receiver.counter("frsm.stream.chunk.retries"));
      assertTrue(damaged[0] >= 2, "the damaged chunk was sent again");
    }
  }

  @Test
  void chunkThatNeverArrivesIntact_failsTheCopy_andImportsNothing() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    ChunkFaults alwaysDamaged =
        (name, offset, data) -> {
          if (offset == 0) {
            data[0] ^= 1;
          }
          return data;
        };
    try (StreamTestNode source =
            cluster.start(1, StreamSettings.defaults(), p -> withFaults(p, alwaysDamaged));
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      source.writeChosen(2_000, 50);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> receiver.streams.copy(1, 0, 0).get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
      assertTrue(
          e.getCause().getMessage().contains("failed verification 4 times"),
          e.getCause().getMessage());
      assertTrue(receiver.engine.tables().isEmpty(), "nothing imported");
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
    }
  }

  @Test
  void aSourceWithNoPeerAddress_failsAfterTwoLookups_notTheWholeRedialBackOff() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      // Node 9 is in no address book: not registered (dead, or being replaced).
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> receiver.streams.copy(9, 0, 0).get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
      String why = e.getCause().getMessage();
      assertTrue(why.contains("node 9 has no known peer address"), why);
      assertTrue(why.contains("after " + ReceiveSession.UNADDRESSED_LOOKUPS + " lookups"), why);
      assertEquals(1.0, receiver.counter("frsm.stream.copies.failed"));
      assertTrue(receiver.engine.tables().isEmpty(), "nothing imported");
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
    }
  }

  @Test
  void diskFull_failsWithTheDirectoryAndBytesNeeded_andImportsNothing() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode receiver =
            cluster.start(
                2,
                StreamSettings.defaults(),
                p -> new RangeStreams.Parts(p.exporter(), p.importer(), dir -> 4096, p.faults()))) {
      source.writeChosen(5_000, 100);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> receiver.streams.copy(1, 0, 0).get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
      String message = e.getCause().getMessage();
      assertTrue(
          message.startsWith(
              "not enough disk space in " + receiver.dataDirectory.resolve(RangeStreams.STAGING)),
          message);
      assertTrue(message.contains("4096 are usable"), message);
      assertTrue(receiver.engine.tables().isEmpty(), "nothing imported");
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
    }
  }

  @Test
  void aClientCertificate_cannotAskForARange() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, true);
    StreamSettings once =
        new StreamSettings(0, 1 << 20, 8, 3, Duration.ofHours(1), 4, 0, Duration.ofMinutes(1));
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p);
        StreamTestNode node2 = cluster.start(2, StreamSettings.defaults(), p -> p);
        io.frsm.client.transport.TransportEventLoops loops =
            io.frsm.client.transport.TransportEventLoops.create(1, false);
        RangeStreams impostor =
            new RangeStreams(
                2,
                StreamTestNode.CLUSTER,
                cluster.clientSecurity("impostor"),
                loops,
                cluster.addresses::get,
                tmp.resolve("impostor"),
                RangeStreams.production(node2.engine),
                once,
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())) {
      source.writeChosen(1_000, 50);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> impostor.copy(1, 0, 0).get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
      assertTrue(
          e.getCause().getMessage().contains("failed after 1 attempts"), e.getCause().getMessage());
      assertEquals(0.0, source.counter("frsm.stream.bytes.sent"));
      assertEmpty(
          source.dataDirectory.resolve(RangeStreams.SNAPSHOTS), "the source exported nothing");
      assertTrue(node2.engine.tables().isEmpty());
    }
  }

  private static RangeStreams.Parts withFaults(RangeStreams.Parts p, ChunkFaults faults) {
    return new RangeStreams.Parts(p.exporter(), p.importer(), p.space(), faults);
  }

  /** Every key in (from, to] is readable on the receiver as written; no other key is there. */
  static int assertCopied(StreamTestNode receiver, int keys, int valueBytes, long from, long to)
      throws IOException {
    int inRange = 0;
    for (int i = 0; i < keys; i++) {
      Key k = StreamTestNode.key(i);
      Cell got = receiver.engine.get(k);
      if (contains(from, to, k.token())) {
        inRange++;
        assertNotNull(got, "key " + i + " was copied");
        Cell expected = StreamTestNode.chosenCell(i, valueBytes);
        assertArrayEquals(expected.accepted().valueUnsafe(), got.accepted().valueUnsafe());
        assertTrue(got.accepted().chosen());
      } else {
        assertNull(got, "key " + i + " is outside the range");
      }
    }
    return inRange;
  }

  static boolean contains(long from, long to, long token) {
    if (from < to) {
      return token > from && token <= to;
    }
    return from == to || token > from || token <= to;
  }

  static boolean isEmpty(Path dir) {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  static void assertEmpty(Path dir, String what) {
    assertTrue(isEmpty(dir), what + " directory " + dir + " is empty");
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
