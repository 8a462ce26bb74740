package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.StreamKeys;
import io.frsm.server.membership.ChangeSettings;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Join time (docs/BENCHMARKS.md): a 3-node cluster holding {@code -Dfrsm.join.benchKeys} keys of
 * 512 B; node 4 is added and the time from the request to the change's end is printed, with the
 * copy and by the settle alone ({@code stream.copyOnJoin: false}), one fresh cluster each ({@code
 * -Dfrsm.join.benchCopy=true} or {@code false} runs one of them). Skipped without {@code
 * frsm.join.benchKeys}: it measures, it checks only that every key reads back.
 *
 * <p>Under a client load ({@code -Dfrsm.join.benchCallers=N}, default 0 = none): N closed-loop
 * callers ({@link ForegroundLoad}) run from before the join to after it, and the throughput and p99
 * are printed for a steady window before the join, the join, its settling steps (every promotion
 * and drop after the learner step) and a window after, each {@code -Dfrsm.join.benchWindowSeconds}
 * (default 20) long. {@code -Dfrsm.join.benchPaces=0,200} runs one fresh cluster per {@code
 * consensus.settleKeysPerSecond} value, in that order, {@code -Dfrsm.join.benchRounds} times
 * (default 1): an A/B alternated. {@code -Dfrsm.join.benchRangesPerNode=N} sets the change's ranges
 * per settling node and step (default 1, as {@code node.membershipStepRangesPerNode}; 0: every
 * range in one promotion); {@code -Dfrsm.join.benchNewNodePreallocates=false} turns node 4's
 * commit-log preallocation off; {@code -Dfrsm.join.benchStreamBytesPerSecond=B} throttles every
 * node's range streams; {@code -Dfrsm.join.benchWaitMinutes} (default 30) bounds the preload's node
 * start and the join.
 */
class JoinTimeBenchmarkIT {
  private static final BenchKeys KEYS = new BenchKeys("join/", 512);

  /**
   * Whether node 4 zero-fills its commit-log segments ahead ({@code
   * -Dfrsm.join.benchNewNodePreallocates}, default true as in production). Off, it does not write
   * 64 MiB of zeros per stripe onto the disk the other three nodes sync on when its first records
   * arrive — the learner step's start (docs/BENCHMARKS.md, 2026-11-28 morning): an A/B of that
   * cost.
   */
  private static final boolean NEW_NODE_PREALLOCATES =
      Boolean.parseBoolean(System.getProperty("frsm.join.benchNewNodePreallocates", "true"));

  /**
   * Every node's {@code stream.maxBytesPerSecond} ({@code -Dfrsm.join.benchStreamBytesPerSecond},
   * default 0 = unthrottled as in production): the foreground targets are asked "during
   * streaming", which a throttled copy is allowed to stretch.
   */
  private static final long STREAM_BYTES_PER_SECOND =
      Long.getLong("frsm.join.benchStreamBytesPerSecond", 0L);

  /**
   * The change's ranges per settling node and step ({@code -Dfrsm.join.benchRangesPerNode}, default
   * 1 as in production; 0: every range in one promotion).
   */
  private static final int RANGES_PER_NODE = Integer.getInteger("frsm.join.benchRangesPerNode", 1);

  @Test
  void addANode_toAClusterHoldingKeys(@TempDir Path dir) throws Exception {
    String keysProperty = System.getProperty("frsm.join.benchKeys");
    assumeTrue(keysProperty != null, "a benchmark: set -Dfrsm.join.benchKeys");
    int keys = Integer.parseInt(keysProperty);
    String mode = System.getProperty("frsm.join.benchCopy", "");
    int rounds = Integer.getInteger("frsm.join.benchRounds", 1);
    List<Integer> paces =
        Arrays.stream(System.getProperty("frsm.join.benchPaces", "0").split(","))
            .map(p -> Integer.valueOf(p.trim()))
            .toList();
    Load load =
        new Load(
            Integer.getInteger("frsm.join.benchCallers", 0),
            Duration.ofSeconds(Integer.getInteger("frsm.join.benchWindowSeconds", 20)));
    for (int round = 1; round <= rounds; round++) {
      for (int pace : paces) {
        String run = "round-" + round + "-pace-" + pace;
        if (!mode.equals("false")) {
          measure(dir.resolve(run + "-copy"), keys, true, pace, load);
        }
        if (!mode.equals("true")) {
          measure(dir.resolve(run + "-settle-only"), keys, false, pace, load);
        }
      }
    }
  }

  /** The client load run across the join: {@code callers} (0: none), steady windows' length. */
  private record Load(int callers, Duration window) {}

  private static void measure(Path dir, int keys, boolean copy, int pace, Load load)
      throws Exception {
    Duration wait = Duration.ofMinutes(Integer.getInteger("frsm.join.benchWaitMinutes", 30));
    // Memtables of a production size: the test clusters' tiny ones stall a bulk load on flushes.
    try (TestCluster cluster =
            TestCluster.withTweaks(
                dir,
                b ->
                    b.lsm(l -> l.memtableFlushSizeBytes(16 << 20))
                        .set(ConsensusKeys.SETTLE_KEYS_PER_SECOND, pace)
                        .set(StreamKeys.MAX_BYTES_PER_SECOND, STREAM_BYTES_PER_SECOND));
        CuratorFramework zk = RingHistoryIT.connect(cluster);
        FrsmNode fourth =
            cluster
                .nodeBuilder(4, dir.resolve("node-4"))
                .join(true)
                .set(StreamKeys.COPY_ON_JOIN, copy)
                .set(StreamKeys.MAX_BYTES_PER_SECOND, STREAM_BYTES_PER_SECOND)
                .lsm(l -> l.commitLogPreallocateSegments(NEW_NODE_PREALLOCATES))
                .build()) {
      MembershipOrchestrator admin =
          TestOrchestrator.of(
              zk, cluster, id -> id == 4, new ChangeSettings(wait, RANGES_PER_NODE));
      long loadStart = System.nanoTime();
      try (FrsmClient client = cluster.node(1).client()) {
        System.out.printf(
            "JOIN-BENCH preload: %d creates resolved again%n", KEYS.load(client, keys));
      }
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
      fourth.start();
      fourth.awaitReady(wait);
      FrsmClient loadClient = load.callers() > 0 ? cluster.node(1).client() : null;
      ForegroundLoad foreground =
          loadClient == null ? null : new ForegroundLoad(loadClient, KEYS, keys, load.callers());
      try {
        long beforeStart = 0;
        long cpuBefore = processCpuNanos();
        MeterSnapshot metersBefore = meters(cluster, fourth);
        if (foreground != null) {
          // Measuring windows, not synchronisation: a warm-up as long as a window, then the window.
          Thread.sleep(load.window().toMillis());
          beforeStart = System.nanoTime();
          cpuBefore = processCpuNanos();
          metersBefore = meters(cluster, fourth);
          Thread.sleep(load.window().toMillis());
        }
        long start = System.nanoTime();
        long cpuAtStart = processCpuNanos();
        MeterSnapshot metersAtStart = meters(cluster, fourth);
        admin.request(Kind.ADD, 4, -1);
        // When each version was first seen published (polled every 100 ms): the steps' times, the
        // process CPU and every node's meters then. Version 1 is the learner step, 2 the first
        // promotion; the last is the last drop.
        java.util.Map<Integer, Long> seenAt = new java.util.TreeMap<>();
        java.util.Map<Integer, Long> cpuAt = new java.util.TreeMap<>();
        java.util.Map<Integer, MeterSnapshot> metersAt = new java.util.TreeMap<>();
        long[] lastLook = {0};
        Await.until(
            () -> {
              try {
                if (System.nanoTime() - lastLook[0] > 100_000_000L) {
                  lastLook[0] = System.nanoTime();
                  int v = (int) admin.newest().version();
                  for (int i = 1; i <= v; i++) {
                    if (!seenAt.containsKey(i)) {
                      seenAt.put(i, lastLook[0]);
                      cpuAt.put(i, processCpuNanos());
                      metersAt.put(i, meters(cluster, fourth));
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
        long cpuAtEnd = processCpuNanos();
        MeterSnapshot metersAtEnd = meters(cluster, fourth);
        int lastVersion = (int) admin.newest().version();
        for (int i = 1; i <= lastVersion; i++) {
          if (!seenAt.containsKey(i)) { // published and passed between two looks
            seenAt.put(i, end);
            cpuAt.put(i, cpuAtEnd);
            metersAt.put(i, metersAtEnd);
          }
        }
        long settleStart = seenAt.get(2);
        MeterSnapshot metersAtSettle = metersAt.get(2);
        double joinSeconds = (end - start) / 1e9;
        if (foreground != null) {
          Thread.sleep(load.window().toMillis()); // the window after the join
          long afterEnd = System.nanoTime();
          long cpuAfter = processCpuNanos();
          MeterSnapshot metersAfter = meters(cluster, fourth);
          foreground.close();
          loadClient.close();
          ForegroundLoad.Window before = foreground.window(beforeStart, start);
          ForegroundLoad.Window during = foreground.window(start, end);
          ForegroundLoad.Window learner = foreground.window(start, settleStart);
          ForegroundLoad.Window settling = foreground.window(settleStart, end);
          ForegroundLoad.Window after = foreground.window(end, afterEnd);
          System.out.printf(
              "JOIN-LOAD pace=%d callers=%d rangesPerNode=%d before: %s; cpu %.2f cores%n",
              pace,
              load.callers(),
              RANGES_PER_NODE,
              before,
              (cpuAtStart - cpuBefore) / (double) (start - beforeStart));
          System.out.printf(
              "JOIN-LOAD pace=%d during join: %s; cpu %.2f cores; settling steps: %s%n",
              pace, during, (cpuAtEnd - cpuAtStart) / (double) (end - start), settling);
          // The learner step alone (the request to the first promotion: the copy, no settle).
          System.out.printf(
              "JOIN-LOAD pace=%d learner step: %s; throughput ÷ before %.2f, p99 ÷ before %.2f%n",
              pace,
              learner,
              learner.opsPerSecond() / before.opsPerSecond(),
              learner.p99Millis() / before.p99Millis());
          System.out.printf(
              "JOIN-LOAD pace=%d after: %s; cpu %.2f cores%n",
              pace, after, (cpuAfter - cpuAtEnd) / (double) (afterEnd - end));
          // Wall-clock bounds of the windows, to cut a JFR recording of the run by them.
          System.out.printf(
              "JOIN-TIMES pace=%d before %s, join %s, settling steps %s, end %s, after end %s%n",
              pace,
              wallClock(beforeStart),
              wallClock(start),
              wallClock(settleStart),
              wallClock(end),
              wallClock(afterEnd));
          // What the nodes counted in each window: the paths the operations took, settles, leases.
          String p = "JOIN-METERS pace=" + pace + " ";
          System.out.print(
              metersAtStart.countsSince(metersBefore, (start - beforeStart) / 1e9, p + "before"));
          System.out.print(
              metersAtSettle.countsSince(
                  metersAtStart, (settleStart - start) / 1e9, p + "learner-step"));
          System.out.print(
              metersAtEnd.countsSince(
                  metersAtSettle, Math.max(1e-3, (end - settleStart) / 1e9), p + "settling"));
          System.out.print(
              metersAfter.countsSince(metersAtEnd, (afterEnd - end) / 1e9, p + "after"));
          System.out.printf(
              "JOIN-LOAD pace=%d ratio during/before: throughput %.2f, p99 %.2f; settling steps/before:"
                  + " throughput %.2f, p99 %.2f%n",
              pace,
              during.opsPerSecond() / before.opsPerSecond(),
              during.p99Millis() / before.p99Millis(),
              settling.opsPerSecond() / before.opsPerSecond(),
              settling.p99Millis() / before.p99Millis());
        }
        if (foreground == null) {
          // Without a load: each step's process CPU and what every node counted in it.
          long[] at = {start, settleStart, seenAt.get(lastVersion), end};
          long[] cpu = {cpuAtStart, cpuAt.get(2), cpuAt.get(lastVersion), cpuAtEnd};
          MeterSnapshot[] m = {
            metersAtStart, metersAtSettle, metersAt.get(lastVersion), metersAtEnd
          };
          String[] steps = {"learner", "promotions and drops", "last drop"};
          for (int s = 0; s < 3; s++) {
            double seconds = Math.max(1e-3, (at[s + 1] - at[s]) / 1e9);
            System.out.printf(
                "JOIN-STEP copy=%s %s: %.1fs, process CPU %.2f cores%n",
                copy, steps[s], seconds, (cpu[s + 1] - cpu[s]) / (seconds * 1e9));
            System.out.print(
                m[s + 1].countsSince(
                    m[s], seconds, "JOIN-STEP-METERS copy=" + copy + " " + steps[s]));
          }
        }
        System.out.printf(
            "JOIN-BENCH steps: learner %.1fs, %d promotions and drops %.1fs, the last drop %.1fs"
                + " (from each version seen published to the next; the first includes the copy)%n",
            (seenAt.get(2) - seenAt.get(1)) / 1e9,
            lastVersion - 1,
            (seenAt.get(lastVersion) - seenAt.get(2)) / 1e9,
            (end - seenAt.get(lastVersion)) / 1e9);
        double bytes = fourth.meterRegistry().get("frsm.stream.bytes.received").counter().count();
        System.out.printf(
            "JOIN-BENCH keys=%d copy=%s pace=%d load=%.1fs join=%.1fs copied=%.1fMB copies=%.0f%n",
            keys,
            copy,
            pace,
            loadSeconds,
            joinSeconds,
            bytes / 1e6,
            MembershipChangeIT.copyMeter(fourth, "done"));
        try (FrsmClient client = cluster.node(2).client()) {
          KEYS.assertSamplesReadBack(client, keys, 1_000);
        }
        assertTrue(
            lastVersion >= 3 && lastVersion % 2 == 1,
            "learners, then a promotion and a drop per batch: " + lastVersion);
      } finally {
        if (foreground != null) {
          foreground.close(); // idempotent: the callers stop even if the join failed
        }
      }
    }
  }

  private static MeterSnapshot meters(TestCluster cluster, FrsmNode fourth) {
    return MeterSnapshot.of(
        cluster.node(1).meterRegistry(),
        cluster.node(2).meterRegistry(),
        cluster.node(3).meterRegistry(),
        fourth.meterRegistry());
  }

  /** The wall-clock instant of a {@link System#nanoTime} reading taken in this run. */
  private static Instant wallClock(long nanoTime) {
    return Instant.now().minusNanos(System.nanoTime() - nanoTime);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
