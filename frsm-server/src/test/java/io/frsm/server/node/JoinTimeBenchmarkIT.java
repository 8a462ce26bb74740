package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.config.StreamKeys;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Join time (docs/BENCHMARKS.md): a 3-node cluster holding {@code -Dfrsm.join.benchKeys} keys of
 * 512 B; node 4 is added and the time from the request to the change's end is printed, with the
 * copy and by the settle alone ({@code stream.copyOnJoin: false}), one fresh cluster each ({@code
 * -Dfrsm.join.benchCopy=true} or {@code false} runs one of them). Skipped without {@code
 * frsm.join.benchKeys}: it measures, it checks only that every key reads back.
 */
class JoinTimeBenchmarkIT {
  private static final BenchKeys KEYS = new BenchKeys("join/", 512);

  @Test
  void addANode_toAClusterHoldingKeys(@TempDir Path dir) throws Exception {
    String keysProperty = System.getProperty("frsm.join.benchKeys");
    assumeTrue(keysProperty != null, "a benchmark: set -Dfrsm.join.benchKeys");
    int keys = Integer.parseInt(keysProperty);
    String mode = System.getProperty("frsm.join.benchCopy", "");
    if (!mode.equals("false")) {
      measure(dir.resolve("copy"), keys, true);
    }
    if (!mode.equals("true")) {
      measure(dir.resolve("settle-only"), keys, false);
    }
  }

  private static void measure(Path dir, int keys, boolean copy) throws Exception {
    Duration wait = Duration.ofMinutes(30);
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
      long loadStart = System.nanoTime();
      try (FrsmClient client = cluster.node(1).client()) {
        System.out.printf(
            "JOIN-BENCH preload: %d creates resolved again%n", KEYS.load(client, keys));
      }
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
      fourth.start();
      fourth.awaitReady(wait);
      long start = System.nanoTime();
      admin.request(Kind.ADD, 4, -1);
      // When each version was first seen published (polled every 100 ms): the steps' times.
      long[] seenAt = new long[4];
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
                  }
                }
              }
              return admin.pending() == null;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          wait,
          "node 4 to be added");
      long end = System.nanoTime();
      double joinSeconds = (end - start) / 1e9;
      System.out.printf(
          "JOIN-BENCH steps: learner %.1fs, promotion %.1fs, drop %.1fs (from each version seen"
              + " published to the next; the first includes the copy)%n",
          (seenAt[2] - seenAt[1]) / 1e9, (seenAt[3] - seenAt[2]) / 1e9, (end - seenAt[3]) / 1e9);
      double bytes = fourth.meterRegistry().get("frsm.stream.bytes.received").counter().count();
      System.out.printf(
          "JOIN-BENCH keys=%d copy=%s load=%.1fs join=%.1fs copied=%.1fMB copies=%.0f%n",
          keys,
          copy,
          loadSeconds,
          joinSeconds,
          bytes / 1e6,
          MembershipChangeIT.copyMeter(fourth, "done"));
      try (FrsmClient client = cluster.node(2).client()) {
        KEYS.assertSamplesReadBack(client, keys, 1_000);
      }
      assertEquals(3, admin.newest().version());
    }
  }
}
