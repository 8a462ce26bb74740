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
import java.util.concurrent.atomic.AtomicReference;

/**
 * Experiment 4 (Figures 22–23): read latency by how the read is served, across value sizes. Reads
 * sent to a key's natural leader are served leader-only when that node holds the range's lease;
 * reads sent to another replica need a quorum. The table reports how the nodes actually served them
 * ({@code frsm.reads{mode}}), so a build without leases shows quorum reads in both rows rather than
 * a made-up leader-only figure.
 */
final class ReadModesExperiment implements Experiment {
  static final int[] QUICK_SIZES = {512, 8192};
  static final int[] FULL_SIZES = {64, 512, 4096, 16384, 65536};
  static final int CLIENTS = 8;
  private static final int PREFILL_THREADS = 16;

  @Override
  public String name() {
    return "reads";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    ResultTable table =
        new ResultTable(
            "value_bytes",
            "sent_to",
            "ops_per_s",
            "get_p50_us",
            "get_p99_us",
            "leader_only_reads",
            "quorum_reads",
            "mutating_quorum_reads");
    ExperimentReport report = new ExperimentReport(name(), table);
    Charts.Series chart = new Charts.Series();
    long keys = o.quick() ? 200 : 2_000;
    Path dir = Systems.freshDir(o, name(), "frsm");
    FrsmLocalCluster frsm = FrsmLocalCluster.start(dir, 2);
    List<double[]> ratios = new ArrayList<>();
    try (FrsmClient check = frsm.checkClient()) {
      try (FrsmClient warm = frsm.client()) {
        Systems.warmUp(warm, o, "frsm");
      }
      for (int size : o.quick() ? QUICK_SIZES : FULL_SIZES) {
        prefill(check, keys, size);
        double[] p50ByRoute = new double[2];
        double[] leaderOnlyShare = new double[2];
        String[] routes = {"leader", "other replica"};
        for (int r = 0; r < routes.length; r++) {
          AtomicReference<CoreStats> before = new AtomicReference<>();
          Point p;
          try (FrsmClient client =
              frsm.client(FrsmLocalCluster.Access.EMBEDDED_LEADER, r == 0 ? 0 : 1)) {
            WorkloadSpec spec =
                Measurement.withValueSize(
                    Measurement.withReadFraction(
                        WorkloadSpec.paper(keys, CLIENTS, o.step(0.5, 4)).uniform(), 1.0),
                    size);
            String label = String.format(Locale.ROOT, "reads %dB to %s", size, routes[r]);
            p =
                Measurement.run(
                    client,
                    check,
                    spec,
                    o.warmup(),
                    label,
                    o.progress(),
                    () -> before.set(frsm.coreStats()));
            report.account(label, p);
          }
          CoreStats d = frsm.coreStats().minus(before.get());
          long served = d.readsLeaderOnly() + d.readsQuorum() + d.readsMutatingQuorum();
          leaderOnlyShare[r] = served == 0 ? 0 : (double) d.readsLeaderOnly() / served;
          p50ByRoute[r] = p.getP50Micros();
          table.add(
              size,
              routes[r],
              p.opsPerSecond(),
              p.getP50Micros(),
              p.getP99Micros(),
              d.readsLeaderOnly(),
              d.readsQuorum(),
              d.readsMutatingQuorum());
          chart.add("sent to " + routes[r], size, p.getP50Micros());
        }
        ratios.add(new double[] {size, p50ByRoute[0] / p50ByRoute[1], leaderOnlyShare[0]});
      }
    } finally {
      Systems.stop(frsm, dir);
    }
    for (double[] r : ratios) {
      report.note(
          r[2] >= 0.9
              ? String.format(
                  Locale.ROOT,
                  "%.0f B: leader-only p50 / quorum p50 = %.2f (target <= 0.5)",
                  r[0],
                  r[1])
              : String.format(
                  Locale.ROOT,
                  "%.0f B: only %.0f%% of the leader-routed reads were served leader-only, so the"
                      + " target (leader-only <= 0.5x quorum) is not measurable in this build;"
                      + " leader-routed p50 / other-replica p50 = %.2f",
                  r[0],
                  r[2] * 100,
                  r[1]));
    }
    report.files.add(
        Charts.line(
            o.out().resolve("paper-reads.png"),
            "Read latency by where the read is sent",
            "value size (bytes)",
            "get p50 (us)",
            chart,
            false));
    return report;
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
