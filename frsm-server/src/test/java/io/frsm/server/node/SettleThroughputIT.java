package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.frsm.api.FrsmClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settle throughput on real nodes (docs/BENCHMARKS.md "Settle and scan throughput"): a 3-node
 * cluster (real commit logs, loopback, mutual TLS) holding {@code -Dfrsm.settle.benchKeys} keys of
 * 100 B; each range's holder is asked to settle its range at the ring version it runs (what a
 * membership step asks of every range whose voters change: every key prepared and re-committed at a
 * quorum), all ranges at once, as the orchestrator asks them. Prints keys/s, the process's CPU per
 * key (the three nodes share this JVM) and commit-log syncs per key. Skipped without the property:
 * it measures; it checks only that every settle answered and that keys read back.
 */
class SettleThroughputIT {
  private static final BenchKeys KEYS = new BenchKeys("settle/", 100);

  @Test
  void settleEveryRange_ofAClusterHoldingKeys(@TempDir Path dir) throws Exception {
    String keysProperty = System.getProperty("frsm.settle.benchKeys");
    assumeTrue(keysProperty != null, "a benchmark: set -Dfrsm.settle.benchKeys");
    int keys = Integer.parseInt(keysProperty);
    int rounds = Integer.getInteger("frsm.settle.benchRounds", 2);
    Duration wait = Duration.ofMinutes(30);
    try (TestCluster cluster =
        TestCluster.withTweaks(dir, b -> b.lsm(l -> l.memtableFlushSizeBytes(16 << 20)))) {
      try (FrsmClient client = cluster.node(1).client()) {
        KEYS.load(client, keys);
      }
      int ranges = cluster.ring().rangeCount();
      // The cluster's CPU with no settle (leases, ZooKeeper, timers): subtracted below, because at
      // a low settle rate it is most of the process's CPU.
      Await.until(() -> everyRangeLed(cluster, ranges), wait, "every range led");
      long idleCpuBefore = processCpuNanos();
      long idleStart = System.nanoTime();
      Thread.sleep(10_000); // a measuring window, not a synchronisation
      double idleCores =
          (processCpuNanos() - idleCpuBefore) / (double) (System.nanoTime() - idleStart);
      System.out.printf("SETTLE-BENCH idle: %.3f cores busy with no settle%n", idleCores);
      for (int round = 1; round <= rounds; round++) {
        Await.until(() -> everyRangeLed(cluster, ranges), wait, "every range led");
        long syncsBefore = syncs(cluster);
        long cpuBefore = processCpuNanos();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long start = System.nanoTime();
        List<CompletableFuture<Boolean>> settles = new ArrayList<>();
        for (int range = 0; range < ranges; range++) {
          FrsmNode holder = holderOf(cluster, range);
          settles.add(holder.servingParts().core().settle(range, holder.ringVersion()));
        }
        CompletableFuture.allOf(settles.toArray(CompletableFuture[]::new))
            .get(wait.toMinutes(), TimeUnit.MINUTES);
        long nanos = System.nanoTime() - start;
        long cpu = processCpuNanos() - cpuBefore;
        long syncs = syncs(cluster) - syncsBefore;
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        for (CompletableFuture<Boolean> s : settles) {
          assertTrue(s.join(), "a settle answered false (a newer ring version?)");
        }
        System.out.printf(
            "SETTLE-BENCH round %d: %d keys, %d ranges settled in %.2f s = %.0f keys/s;"
                + " process CPU %.0f µs/key (%.0f above idle); commit-log syncs %.3f/key (%d);"
                + " load %.1f -> %.1f%n",
            round,
            keys,
            ranges,
            nanos / 1e9,
            keys / (nanos / 1e9),
            cpu / 1e3 / keys,
            (cpu - idleCores * nanos) / 1e3 / keys,
            syncs / (double) keys,
            syncs,
            loadBefore,
            loadAfter);
      }
      try (FrsmClient client = cluster.node(2).client()) {
        KEYS.assertSamplesReadBack(client, keys, 500);
      }
    }
  }

  private static boolean everyRangeLed(TestCluster cluster, int ranges) {
    for (int range = 0; range < ranges; range++) {
      if (holderOf(cluster, range) == null) {
        return false;
      }
    }
    return true;
  }

  private static FrsmNode holderOf(TestCluster cluster, int range) {
    for (int id = 1; id <= cluster.size(); id++) {
      if (cluster.node(id).leadsRange(range)) {
        return cluster.node(id);
      }
    }
    return null;
  }

  private static long syncs(TestCluster cluster) {
    long n = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      MeterRegistry registry = cluster.node(id).meterRegistry();
      for (Timer t : registry.find("frsm.commitlog.sync.latency").timers()) {
        n += t.count();
      }
    }
    return n;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
