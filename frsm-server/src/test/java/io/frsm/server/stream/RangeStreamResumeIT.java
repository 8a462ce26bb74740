package io.frsm.server.stream;

import static io.frsm.server.stream.RangeStreamIT.assertCopied;
import static io.frsm.server.stream.RangeStreamIT.assertEmpty;
import static io.frsm.server.stream.RangeStreamIT.await;
import static io.frsm.server.stream.RangeStreamIT.isEmpty;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams interrupted mid-way (docs/formats/streaming.md "Resumption"): the copies are throttled so
 * that the interruption lands in the middle. A killed sender's snapshot survives on its disk, so
 * the receiver resumes where its verified progress stood; a killed receiver's staging directory and
 * progress survive, so the next copy of the range resumes; a cancel stops both sides and leaves
 * nothing behind.
 */
class RangeStreamResumeIT {
  private static final int KEYS = 20_000;
  private static final int VALUE_BYTES = 500;
  private static final StreamSettings THROTTLED =
      StreamSettings.defaults().withChunkBytes(64 * 1024).withMaxBytesPerSecond(3_000_000);

  @TempDir Path tmp;

  @Test
  void senderKilledMidStream_receiverResumesFromItsVerifiedProgress() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, true);
    StreamTestNode source = cluster.start(1, THROTTLED, p -> p);
    // The receiver throttled too: its paced requests must survive the connection they were for.
    try (StreamTestNode receiver = cluster.start(2, THROTTLED, p -> p)) {
      source.writeChosen(KEYS, VALUE_BYTES);
      CompletableFuture<Void> copy = receiver.streams.copy(1, 0, 0);
      long total = awaitSnapshotBytes(source);
      await(
          () -> receiver.counter("frsm.stream.bytes.received") > total / 3,
          "a third of the range received");
      source.kill();
      double beforeRestart = receiver.counter("frsm.stream.bytes.received");
      source = cluster.start(1, StreamSettings.defaults(), p -> p);
      copy.get(120, TimeUnit.SECONDS);

      assertCopied(receiver, KEYS, VALUE_BYTES, 0, 0);
      double sentAfterRestart = source.counter("frsm.stream.bytes.sent");
      assertTrue(
          sentAfterRestart <= total - beforeRestart + THROTTLED.chunkBytes() * 8.0,
          "resumed: the restarted source sent "
              + sentAfterRestart
              + " of "
              + total
              + " bytes; "
              + beforeRestart
              + " had arrived before");
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
    } finally {
      source.close();
    }
  }

  @Test
  void receiverKilledMidStream_nextCopyResumesFromTheStagedProgress() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode source = cluster.start(1, StreamSettings.defaults(), p -> p)) {
      source.writeChosen(KEYS, VALUE_BYTES);
      StreamTestNode receiver = cluster.start(2, THROTTLED, p -> p);
      CompletableFuture<Void> first = receiver.streams.copy(1, 0, 0);
      long total = awaitSnapshotBytes(source);
      StagingArea staging =
          new StagingArea(receiver.dataDirectory.resolve(RangeStreams.STAGING), 1, 0, 0);
      await(
          () -> {
            StagingArea.Progress p = staging.load();
            return p != null && p.verified().length == 1 && p.verified()[0] > total / 3;
          },
          "a third of the range verified and durable (a checkpoint, one a second)");
      receiver.kill();
      assertThrows(Exception.class, () -> first.get(30, TimeUnit.SECONDS));
      assertTrue(
          !isEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING)),
          "a crash leaves the staging directory for the next copy");

      long durable = staging.load().verified()[0];
      try (StreamTestNode restarted = cluster.start(2, StreamSettings.defaults(), p -> p)) {
        restarted.streams.copy(1, 0, 0).get(120, TimeUnit.SECONDS);
        assertCopied(restarted, KEYS, VALUE_BYTES, 0, 0);
        double again = restarted.counter("frsm.stream.bytes.received");
        assertEquals(
            (double) (total - durable),
            again,
            "resumed: only what was not durable (" + durable + " of " + total + ") is fetched");
        assertEmpty(restarted.dataDirectory.resolve(RangeStreams.STAGING), "staging");
      }
    }
  }

  @Test
  void cancel_stopsBothSides_andLeavesNothingBehind() throws Exception {
    StreamTestNode.Cluster cluster = new StreamTestNode.Cluster(tmp, false);
    try (StreamTestNode source = cluster.start(1, THROTTLED, p -> p);
        StreamTestNode receiver = cluster.start(2, StreamSettings.defaults(), p -> p)) {
      source.writeChosen(KEYS, VALUE_BYTES);
      CompletableFuture<Void> copy = receiver.streams.copy(1, 0, 0);
      long total = awaitSnapshotBytes(source);
      await(() -> receiver.counter("frsm.stream.bytes.received") > total / 4, "a quarter received");
      copy.cancel(true);
      assertThrows(CancellationException.class, copy::join);
      await(() -> isEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING)), "staging removed");
      await(
          () -> isEmpty(source.dataDirectory.resolve(RangeStreams.SNAPSHOTS)),
          "the source dropped its snapshot");
      await(
          () ->
              source.meters.get("frsm.stream.sessions.active").tag("side", "source").gauge().value()
                  == 0,
          "the source session ended");
      double sent = source.counter("frsm.stream.bytes.sent");
      assertTrue(sent < total, "the source stopped sending: " + sent + " of " + total);
      assertTrue(receiver.engine.tables().isEmpty(), "nothing imported");
      for (int i = 0; i < 100; i++) {
        Cell c = receiver.engine.get(StreamTestNode.key(i));
        assertTrue(c == null, "nothing imported");
      }
      assertEmpty(receiver.dataDirectory.resolve(RangeStreams.STAGING), "staging");
    }
  }

  /** The size of the source's snapshot once its manifest is written. */
  private static long awaitSnapshotBytes(StreamTestNode source) throws Exception {
    Path root = source.dataDirectory.resolve(RangeStreams.SNAPSHOTS);
    long[] total = {0};
    await(
        () -> {
          try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.toList()) {
              if (Files.exists(dir.resolve(SnapshotStore.MANIFEST))) {
                try (Stream<Path> files = Files.list(dir)) {
                  total[0] =
                      files
                          .filter(f -> f.getFileName().toString().endsWith(".db"))
                          .mapToLong(RangeStreamResumeIT::size)
                          .sum();
                }
                return true;
              }
            }
            return false;
          } catch (IOException e) {
            return false;
          }
        },
        "the source's snapshot");
    assertTrue(total[0] > 4 * 1024 * 1024, "a snapshot of several MB: " + total[0]);
    return total[0];
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return 0;
    }
  }
}
