package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.LsmKeys;
import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flushes that lag behind the writes (docs/OPERATIONS.md "Failure handling", **Slow disk**): with
 * memtables of 2 KiB and {@code lsm.maxFrozenMemtables: 1}, every memtable switch fills the flush
 * queue until that flush publishes, so under the counter load each node's engine holds writes back
 * over and over — as a slow disk does under a burst. No node may stop (a write that waited is a
 * persist that succeeded late, never a failed one), writes go on by themselves, and no acknowledged
 * increment is lost or doubled. Before the stall held writes back, such a node went fatal ("write
 * stalled") at the first full queue.
 */
class SlowFlushIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /**
   * Writes held back at least this often, all nodes together (each one, before the stall waited,
   * failed its persist and stopped its node). Most flushes hold nothing back: the gate closes with
   * the flush queue and stops the inflow first; a write is held only when it was already on its
   * way.
   */
  private static final int STALLS_WANTED = 5;

  @Test
  void flushesBehindTheWrites_holdWritesBack_noNodeStops_noIncrementLost(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster =
        TestCluster.withTweaks(
            dir,
            b -> {
              b.set(LsmKeys.MEMTABLE_FLUSH_SIZE_BYTES, 2048L);
              b.set(LsmKeys.MAX_FROZEN_MEMTABLES, 1);
            })) {
      Ring ring = cluster.ring();
      List<Integer> hot = new ArrayList<>();
      for (int id = 1; id <= cluster.size(); id++) {
        int leader = id;
        int taken = 0;
        for (int r = 0; r < ring.rangeCount() && taken < 4; r++) {
          if (ring.replicasOfRange(r).get(0) == leader) {
            hot.add(r);
            taken++;
          }
        }
      }
      int[] boots = new int[cluster.size() + 1];
      for (int id = 1; id <= cluster.size(); id++) {
        boots[id] = cluster.node(id).boot();
      }
      HotKeyLoad load = new HotKeyLoad(cluster, hot);
      Await.until(
          () -> stalls(cluster) >= STALLS_WANTED, TIMEOUT, "the engines to hold writes back");
      long stalledAt = System.nanoTime();
      load.awaitIncrementsAfter(stalledAt, TIMEOUT, "every hot key to take increments after");
      load.close();
      System.out.printf(
          "writes held back %.0f times, mutations refused while flushes were behind: %.0f%n",
          stalls(cluster), refusals(cluster));

      for (int id = 1; id <= cluster.size(); id++) {
        FrsmNode node = cluster.node(id);
        assertTrue(node.serving(), "node " + id + " stopped serving");
        assertEquals(boots[id], node.boot(), "node " + id + " was restarted");
        Await.until(() -> held(node) == 0, TIMEOUT, "node " + id + " to let every write in");
      }
      assertTrue(
          load.errors().stream().noneMatch(e -> e.contains("write stalled")),
          "a write failed instead of waiting: " + load.errors());
      assertEquals(List.of(), load.answerViolations());
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()));
    }
  }

  /** Times the nodes' engines began to hold writes back, all nodes together. */
  private static double stalls(TestCluster cluster) {
    return sum(cluster, "frsm.lsm.write.stalls");
  }

  /** Mutations the nodes refused while their flushes were behind, all nodes together. */
  private static double refusals(TestCluster cluster) {
    return sum(cluster, "frsm.write.stall.refused");
  }

  private static double sum(TestCluster cluster, String functionCounter) {
    double sum = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      sum += cluster.node(id).meterRegistry().get(functionCounter).functionCounter().count();
    }
    return sum;
  }

  private static double held(FrsmNode node) {
    return node.meterRegistry().get("frsm.lsm.writes.held").gauge().value();
  }
}
