package io.frsm.server.cli;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.workload.WorkloadResult;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code frsm demo}: a local 3-node cluster under the paper's workload (43% reads, 57% CAS,
 * 512-byte values, Zipf 0.99) with a progress line (live on a terminal); a third of the way in, the
 * node leading the hottest key's range at that moment is killed (as kill -9 would: no drain, no
 * flush), and restarted on its directories at two thirds ({@link HotRangeNemesis}). Meanwhile
 * clients run the paper's Appendix C counter test; the summary shows throughput and p50/p99 latency
 * per operation, warm and cold CAS, reads by mode, and whether any acknowledged increment was lost
 * or doubled.
 */
final class DemoCommand {
  static final int KEYS = 10_000;
  static final int WORKLOAD_CLIENTS = 16;
  static final int COUNTER_CLIENTS = 4;
  static final int COUNTERS = 8;

  private DemoCommand() {}

  static int run(List<String> raw, PrintStream out) throws Exception {
    Args args = Args.parse(raw, Set.of("seconds", "dir"));
    int seconds = args.integer("seconds", 30);
    if (seconds < 3) {
      throw new Args.UsageException("--seconds must be at least 3");
    }
    Path dir =
        args.options.containsKey("dir")
            ? Path.of(args.options.get("dir"))
            : Files.createTempDirectory("frsm-demo-");
    out.println("starting ZooKeeper and 3 nodes on loopback (data in " + dir + ") ...");
    try (LocalCluster cluster = LocalCluster.start(dir, 3);
        FrsmClient client = cluster.thinClient()) {
      out.println(
          "running the paper's workload for "
              + seconds
              + " s; the node leading range "
              + HotRangeNemesis.hotRange(cluster)
              + " (the hottest key's) is killed at "
              + seconds / 3
              + " s and restarts at "
              + 2 * seconds / 3
              + " s");
      out.println(
          "(fsync here is absorbed by a host cache: latencies look better than on a real disk)");
      WorkloadSpec spec = WorkloadSpec.paper(KEYS, WORKLOAD_CLIENTS, Duration.ofSeconds(seconds));
      CounterCheck counters = new CounterCheck(client, COUNTERS, "demo");
      AtomicBoolean running = new AtomicBoolean(true);
      List<Thread> counterClients = startCounterClients(counters, running);
      ProgressLine progress = ProgressLine.forOutput(out);
      Thread nemesis =
          new Thread(
              new HotRangeNemesis(cluster, System.nanoTime(), spec.duration().toNanos(), progress),
              "demo-nemesis");
      nemesis.start();
      WorkloadResult result = new WorkloadRunner(client, spec, progress::update).run();
      running.set(false);
      nemesis.join();
      for (Thread t : counterClients) {
        t.join();
      }
      progress.finish();
      out.println();
      out.print(result.summary());
      printCoreStats(cluster, out);
      List<String> problems = counters.verify();
      out.printf(
          "Appendix C counter check: %d increments took effect, %d unknown outcomes resolved by"
              + " fence, acknowledged increments lost or doubled: %d%n",
          counters.incrementsTookEffect(), counters.unknownOutcomesResolved(), problems.size());
      problems.forEach(p -> out.println("  " + p));
      return problems.isEmpty() ? 0 : 1;
    }
  }

  /**
   * The consensus counters summed over the running nodes (the restarted node counts from its
   * restart): how many CAS operations were warm (1 RTT) or cold (prepare first), and how gets were
   * served.
   */
  private static void printCoreStats(LocalCluster cluster, PrintStream out) {
    CoreStats total = CoreStats.ZERO;
    for (FrsmNode n : cluster.nodes()) {
      total = total.plus(n.coreStats());
    }
    out.printf(
        "CAS operations (all running nodes): %d warm, %d cold; multi-phase fraction %.1f%%%n",
        total.casWarm(), total.casCold(), 100 * total.multiPhaseFraction());
    out.printf(
        "reads by mode (all running nodes): %d leader-only, %d quorum, %d mutating quorum%n",
        total.readsLeaderOnly(), total.readsQuorum(), total.readsMutatingQuorum());
  }

  private static List<Thread> startCounterClients(CounterCheck counters, AtomicBoolean running) {
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < COUNTER_CLIENTS; c++) {
      int clientId = c;
      Thread t =
          new Thread(
              () -> {
                long seq = 0;
                while (running.get()) {
                  counters.incrementOnce((int) (seq % counters.counterCount()), clientId, seq);
                  seq++;
                }
              },
              "demo-counter-" + c);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    return threads;
  }
}
