package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.Versioned;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Experiment 4 (Figures 22–23): leader-only vs quorum read latency across value sizes. Two clusters
 * run in turn, both with leases and every read sent to the key's leader: one as in production (the
 * leader answers from its own store under its lease), one with {@code consensus.leaderOnlyReads:
 * false} (the leader runs a quorum read, 1 RTT). The table reports how the nodes actually served
 * the reads ({@code frsm.reads{mode}}), so a comparison whose rows were not served as labelled says
 * so instead of reporting a ratio. The JVM warms up once, on the first cluster.
 */
final class ReadModesExperiment implements Experiment {
  static final int[] QUICK_SIZES = {512, 8192};
  static final int[] FULL_SIZES = {64, 512, 4096, 16384, 65536};
  static final int CLIENTS = 8;
  private static final int PREFILL_THREADS = 16;
  private static final String[] MODES = {"leader-only", "quorum"};

  @Override
  public String name() {
    return "reads";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    ResultTable table =
        new ResultTable(
            "value_bytes",
            "configured",
            "ops_per_s",
            "get_p50_us",
            "get_p99_us",
            "leader_only_reads",
            "quorum_reads",
            "mutating_quorum_reads");
    ExperimentReport report = new ExperimentReport(name(), table);
    Charts.Series chart = new Charts.Series();
    long keys = o.quick() ? 200 : 2_000;
    int[] sizes = o.quick() ? QUICK_SIZES : FULL_SIZES;
    double[][] p50 = new double[MODES.length][sizes.length];
    double[][] servedAsConfigured = new double[MODES.length][sizes.length];
    for (int m = 0; m < MODES.length; m++) {
      boolean leaderOnly = m == 0;
      Path dir = Systems.freshDir(o, name(), "frsm-" + MODES[m]);
      FrsmLocalCluster frsm =
          FrsmLocalCluster.start(
              dir, FrsmLocalCluster.Settings.DEFAULT.leaderOnlyReads(leaderOnly));
      try (FrsmClient check = frsm.checkClient();
          FrsmClient client = frsm.client()) {
        if (m == 0) {
          Systems.warmUp(client, o, "frsm");
        }
        for (int z = 0; z < sizes.length; z++) {
          int size = sizes[z];
          prefill(check, keys, size);
          String label = String.format(Locale.ROOT, "reads %dB %s", size, MODES[m]);
          Measurement.OnFrsm step =
              Measurement.run(
                  frsm,
                  client,
                  check,
                  new Measurement.Step(readsOnly(keys, size, o), o.warmup(), label, o.progress()));
          Point p = step.point();
          report.account(label, p);
          CoreStats d = step.counted().core();
          long served = d.readsLeaderOnly() + d.readsQuorum() + d.readsMutatingQuorum();
          long asConfigured = leaderOnly ? d.readsLeaderOnly() : served - d.readsLeaderOnly();
          servedAsConfigured[m][z] = served == 0 ? 0 : (double) asConfigured / served;
          p50[m][z] = p.getP50Micros();
          table.add(
              size,
              MODES[m],
              p.opsPerSecond(),
              p.getP50Micros(),
              p.getP99Micros(),
              d.readsLeaderOnly(),
              d.readsQuorum(),
              d.readsMutatingQuorum());
          chart.add(MODES[m] + " reads", size, p.getP50Micros());
        }
      } finally {
        Systems.stop(frsm, dir);
      }
    }
    for (int z = 0; z < sizes.length; z++) {
      report.note(
          servedAsConfigured[0][z] >= 0.9 && servedAsConfigured[1][z] >= 0.9
              ? String.format(
                  Locale.ROOT,
                  "%d B: leader-only p50 / quorum p50 = %.2f (target <= 0.5)",
                  sizes[z],
                  p50[0][z] / p50[1][z])
              : String.format(
                  Locale.ROOT,
                  "%d B: only %.0f%% / %.0f%% of the reads were served as configured"
                      + " (leader-only / quorum): no ratio reported",
                  sizes[z],
                  servedAsConfigured[0][z] * 100,
                  servedAsConfigured[1][z] * 100));
    }
    report.files.add(
        Charts.line(
            o.out().resolve("paper-reads.png"),
            "Read latency: leader-only vs quorum reads",
            "value size (bytes)",
            "get p50 (us)",
            chart,
            false));
    return report;
  }

  /** Gets only, of {@code size}-byte values, uniform over {@code keys} keys. */
  private static WorkloadSpec readsOnly(long keys, int size, ExperimentOptions o) {
    WorkloadSpec paper = WorkloadSpec.paper(keys, CLIENTS, o.step(0.5, 4));
    return new WorkloadSpec(
        paper.keyCount(),
        0, // uniform
        1.0,
        size,
        false,
        paper.clients(),
        paper.duration(),
        paper.targetOpsPerSecond(),
        paper.seed());
  }

  /** Writes every key once at {@code size} bytes (create, or CAS over an older size). */
  private static void prefill(FrsmClient client, long keys, int size) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(PREFILL_THREADS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < PREFILL_THREADS; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  byte[] value = new byte[size];
                  for (long i = first; i < keys; i += PREFILL_THREADS) {
                    byte[] key = WorkloadRunner.key(i);
                    Optional<Versioned> current = client.get(key);
                    if (current.isPresent()) {
                      client.cas(key, current.get().version(), value);
                    } else {
                      client.create(key, value);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
