package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operation queued at a node that holds the key's range but may not coordinate it yet is not
 * stranded when that node hands the range over: it is routed to the new leader and completes there,
 * long before the bounded delay would have answered it "not executed".
 *
 * <p>The window is held open without racing a timer: with the range's third replica down and its
 * natural leader killed, the stand-in wins the range but cannot persist its term (it needs a second
 * replica), so a write queued there waits. The natural leader's restart makes the stand-in hand the
 * range back; before the fix the queued write sat at the stand-in until {@code T} (20 s here) and
 * failed.
 */
class HandOverRerouteIT {
  /** Far above everything the hand-over takes, so only a stranded operation meets it. */
  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(20);

  private static final Duration MOVE_TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aWriteQueuedAtAStandIn_followsTheRangeToTheRestartedNaturalLeader(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster =
        new TestCluster(dir, 3, BOUNDED_DELAY, TestCluster.CLOCK_SKEW_BOUND)) {
      Ring ring = cluster.ring();
      int range = firstRangeLedBy(ring, 1);
      List<Integer> replicas = ring.replicasOfRange(range);
      int standIn = replicas.get(1);
      int third = replicas.get(2);
      byte[] key = keyIn(cluster, range);

      cluster.crash(third);
      cluster.crash(1);
      cluster.awaitLeader(range, standIn, MOVE_TIMEOUT);

      // Queued at the stand-in: it holds the range, so it runs the write itself, and cannot yet.
      FrsmClient client = cluster.node(standIn).client();
      CompletableFuture<Version> write = client.createAsync(key, "moved".getBytes(UTF_8));
      assertFalse(write.isDone(), "no quorum for the stand-in's term: the write waits");

      cluster.restart(1);
      Version written = write.get(BOUNDED_DELAY.toSeconds() * 2, TimeUnit.SECONDS);
      assertTrue(
          cluster.node(1).leadsRange(range), "the natural leader took the range and wrote it");
      assertArrayEquals(
          "moved".getBytes(UTF_8), cluster.node(1).client().get(key).orElseThrow().value());
      assertEquals(written, cluster.node(1).client().get(key).orElseThrow().version());
      double rerouted =
          cluster
              .node(standIn)
              .meterRegistry()
              .get("frsm.operations.routed")
              .tag("how", "rerouted")
              .counter()
              .count();
      assertTrue(rerouted >= 1, "the stand-in routed the write again: " + rerouted);
    }
  }

  private static int firstRangeLedBy(Ring ring, int nodeId) {
    for (int r = 0; r < ring.rangeCount(); r++) {
      if (ring.replicasOfRange(r).get(0) == nodeId) {
        return r;
      }
    }
    throw new AssertionError("node " + nodeId + " leads no range");
  }

  private static byte[] keyIn(TestCluster cluster, int range) {
    for (int i = 0; ; i++) {
      byte[] key = ("reroute-" + i).getBytes(UTF_8);
      if (cluster.rangeOf(key) == range) {
        return key;
      }
    }
  }
}
