package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.config.StreamKeys;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.zk.RingVersion;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Time to replace a dead node (docs/BENCHMARKS.md, issue 22 "Replace a dead node holding 1M keys:
 * time to full RF"): a 3-node cluster (RF 3, so node 3 is a voter of every range) holding {@code
 * -Dfrsm.replace.benchKeys} keys of 512 B; node 3 is killed (no drain, no flush) and its
 * directories deleted; once its ranges' stand-in holders finished their scans, node 4 (empty,
 * {@code join: true}) is started and the replace of 3 by 4 requested. Printed: the time from the
 * request to each ring version seen published (learner: the copies; promotion: its settle; drop:
 * its settle and the installs) and to the change's end, the bytes copied, the process CPU and every
 * {@code frsm.*} meter's change per step. Then every key is read back. {@code
 * -Dfrsm.replace.benchCopy=false} runs it with {@code stream.copyOnJoin: false} (the settles
 * alone). Skipped without {@code frsm.replace.benchKeys}: it measures, it checks only that the
 * change ends with node 4 in node 3's place and every key reads back.
 */
class ReplaceTimeBenchmarkIT {
  private static final BenchKeys KEYS = new BenchKeys("replace/", 512);

  @Test
  void replaceADeadNode_inAClusterHoldingKeys(@TempDir Path dir) throws Exception {
    String keysProperty = System.getProperty("frsm.replace.benchKeys");
    assumeTrue(keysProperty != null, "a benchmark: set -Dfrsm.replace.benchKeys");
    int keys = Integer.parseInt(keysProperty);
    boolean copy = Boolean.parseBoolean(System.getProperty("frsm.replace.benchCopy", "true"));
    Duration wait = Duration.ofMinutes(Integer.getInteger("frsm.replace.benchWaitMinutes", 60));
    // Memtables of a production size: the test clusters' tiny ones stall a bulk load on flushes.
    try (TestCluster cluster =
            TestCluster.withTweaks(dir, b -> b.lsm(l -> l.memtableFlushSizeBytes(16 << 20)));
        CuratorFramework zk = RingHistoryIT.connect(cluster);
        FrsmNode fourth =
            cluster
                .nodeBuilder(4, dir.resolve("node-4"))
                .join(true)
                .set(StreamKeys.COPY_ON_JOIN, copy)
                .build()) {
      MembershipOrchestrator admin = TestOrchestrator.of(zk, cluster, id -> id == 4, wait);
      int ranges = cluster.ring().rangeCount();
      long loadStart = System.nanoTime();
      try (FrsmClient client = cluster.node(1).client()) {
        System.out.printf(
            "REPLACE-BENCH preload: %d creates resolved again%n", KEYS.load(client, keys));
      }
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;

      // Node 3's disk is lost: killed, its directories deleted. Its ranges' next replicas take
      // them over and scan them; the replace is measured after those scans, on its own.
      long ledBy3 =
          java.util.stream.IntStream.range(0, ranges)
              .filter(r -> cluster.node(3).leadsRange(r))
              .count();
      long scansBefore = scansCompleted(cluster.node(1)) + scansCompleted(cluster.node(2));
      long crashed = System.nanoTime();
      cluster.crash(3);
      deleteRecursively(dir.resolve("node-3"));
      Await.until(
          () ->
              scansCompleted(cluster.node(1)) + scansCompleted(cluster.node(2)) - scansBefore
                  >= ledBy3,
          wait,
          "nodes 1 and 2 to scan the " + ledBy3 + " ranges node 3 led");
      double failoverSeconds = (System.nanoTime() - crashed) / 1e9;
      System.out.printf(
          "REPLACE-BENCH failover: %d ranges node 3 led scanned by nodes 1 and 2 in %.1fs%n",
          ledBy3, failoverSeconds);

      fourth.start();
      fourth.awaitReady(wait);

      long start = System.nanoTime();
      long[] cpuAt = new long[5];
      MeterSnapshot[] metersAt = new MeterSnapshot[5];
      long[] seenAt = new long[5];
      seenAt[0] = start;
      cpuAt[0] = processCpuNanos();
      metersAt[0] = meters(cluster, fourth);
      admin.request(Kind.REPLACE, 3, 4);
      // When each version was first seen published (polled every 100 ms): the steps' times.
      long[] lastLook = {0};
      Await.until(
          () -> {
            try {
              if (System.nanoTime() - lastLook[0] > 100_000_000L) {
                lastLook[0] = System.nanoTime();
                int v = (int) Math.min(3, admin.newest().version());
                for (int i = 1; i <= v; i++) {
                  if (seenAt[i] == 0) {
                    seenAt[i] = lastLook[0];
                    cpuAt[i] = processCpuNanos();
                    metersAt[i] = meters(cluster, fourth);
                    System.out.printf(
                        "REPLACE-BENCH version %d seen published %.1fs after the request%n",
                        i, (seenAt[i] - start) / 1e9);
                  }
                }
              }
              return admin.pending() == null;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          wait,
          "node 3 to be replaced by node 4");
      seenAt[4] = System.nanoTime();
      cpuAt[4] = processCpuNanos();
      metersAt[4] = meters(cluster, fourth);
      for (int i = 1; i <= 3; i++) {
        if (seenAt[i] == 0) { // published and passed between two looks
          seenAt[i] = seenAt[4];
          cpuAt[i] = cpuAt[4];
          metersAt[i] = metersAt[4];
        }
      }
      String[] steps = {"learner", "promotion", "drop"};
      for (int s = 0; s < 3; s++) {
        int from = s == 0 ? 0 : s + 1;
        int to = s + 2;
        double seconds = (seenAt[to] - seenAt[from]) / 1e9;
        System.out.printf(
            "REPLACE-BENCH step %s: %.1fs, process CPU %.2f cores%n",
            steps[s], seconds, (cpuAt[to] - cpuAt[from]) / (double) (seenAt[to] - seenAt[from]));
        System.out.print(
            metersAt[to].countsSince(
                metersAt[from], Math.max(1e-3, seconds), "REPLACE-METERS " + steps[s]));
      }
      double bytes = fourth.meterRegistry().get("frsm.stream.bytes.received").counter().count();
      double copySeconds = (seenAt[2] - start) / 1e9;
      System.out.printf(
          "REPLACE-BENCH steps: learner %.1fs, promotion %.1fs, drop %.1fs (the request to version"
              + " 2 seen published, then from each version seen published to the next, the last"
              + " to the change's end; the first includes the copies)%n",
          copySeconds, (seenAt[3] - seenAt[2]) / 1e9, (seenAt[4] - seenAt[3]) / 1e9);
      System.out.printf(
          "REPLACE-BENCH keys=%d copy=%s load=%.1fs replace=%.1fs copied=%.1fMB (%.1f MB/s over"
              + " the learner step) copies=%.0f ranges=%d%n",
          keys,
          copy,
          loadSeconds,
          (seenAt[4] - start) / 1e9,
          bytes / 1e6,
          bytes / 1e6 / copySeconds,
          MembershipChangeIT.copyMeter(fourth, "done"),
          ranges);

      RingVersion replaced = admin.newest();
      assertEquals(3, replaced.version());
      assertEquals(Set.of(3), replaced.retired());
      assertFalse(replaced.placement().nodes().contains(3));
      for (int r = 0; r < ranges; r++) {
        assertEquals(List.of(1, 2, 4), sorted(replaced.placement().replicas(r)), "range " + r);
      }
      long readStart = System.nanoTime();
      try (FrsmClient client = cluster.node(2).client()) {
        KEYS.assertAllReadBack(client, keys);
      }
      System.out.printf(
          "REPLACE-BENCH read back all %d keys in %.1fs%n",
          keys, (System.nanoTime() - readStart) / 1e9);
    }
  }

  private static List<Integer> sorted(List<Integer> ids) {
    return ids.stream().sorted().toList();
  }

  private static long scansCompleted(FrsmNode n) {
    CoreShards core = n.servingParts().core();
    return core == null ? 0 : core.handOffTally().scansCompleted();
  }

  /** Nodes 1, 2 and 4 (node 3 is dead): its meters are named n1, n2 and n4. */
  private static MeterSnapshot meters(TestCluster cluster, FrsmNode fourth) {
    return MeterSnapshot.of(
        cluster.node(1).meterRegistry(),
        cluster.node(2).meterRegistry(),
        null,
        fourth.meterRegistry());
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
