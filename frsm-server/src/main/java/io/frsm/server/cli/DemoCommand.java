package io.frsm.server.cli;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.workload.WorkloadResult;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code frsm demo}: a local 3-node cluster under the paper's workload (43% reads, 57% CAS,
 * 512-byte values, Zipf 0.99) with a progress line (live on a terminal); a third of the way in, the
 * node leading the hottest key's range at that moment is killed (as kill -9 would: no drain, no
 * flush), and restarted on its directories at two thirds ({@link HotRangeNemesis}). Meanwhile
 * clients run the paper's Appendix C counter test; the summary shows throughput and p50/p99 latency
 * per operation, warm and cold CAS, reads by mode, and whether any acknowledged increment was lost
 * or doubled.
 */
@Command(
    name = "demo",
    description = {
      "A local 3-node cluster under the paper's workload, through a leader kill.",
      "43%% reads, 57%% CAS, 512-byte values, Zipf 0.99; the node leading the hottest key's range"
          + " is killed at 1/3 of the run and restarted at 2/3. Prints throughput, latency and the"
          + " Appendix C counter check (exit 1 if an acknowledged increment was lost or doubled)."
    })
final class DemoCommand implements Callable<Integer> {
  static final int KEYS = 10_000;
  static final int WORKLOAD_CLIENTS = 16;
  static final int COUNTER_CLIENTS = 4;
  static final int COUNTERS = 8;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      defaultValue = "30",
      description = "How long the workload runs, at least 3 (default: ${DEFAULT-VALUE}).")
  int seconds;

  @Mixin DataDirectoryOption data;

  @Spec CommandSpec spec;

  private final PrintStream out;

  DemoCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (seconds < 3) {
      throw new ParameterException(spec.commandLine(), "--seconds must be at least 3");
    }
    Path dir = data.orNewTemporary("frsm-demo-");
    out.println("starting ZooKeeper and 3 nodes on loopback (data in " + dir + ") ...");
    try (LocalCluster cluster = LocalCluster.start(dir, LocalCommand.CLUSTER_ID, 3);
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
      printCoreStats(cluster);
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
  private void printCoreStats(LocalCluster cluster) {
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
