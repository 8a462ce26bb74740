package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Experiment 3 (Figure 16): frsm's throughput as the share of operations that need a multi-phase
 * (prepare + accept) protocol grows. A chosen share of the calls goes to a node other than the
 * key's natural leader; that node holds no promise for the key and must prepare, which also makes
 * the leader's next CAS on the key cold. The x axis is the share measured by the nodes ({@code
 * frsm.cas.rounds{mode=cold}} over all CAS rounds), not the share asked for.
 */
final class MultiPhaseExperiment implements Experiment {
  static final double[] QUICK_FRACTIONS = {0, 0.5};
  static final double[] FULL_FRACTIONS = {0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0};
  static final int CLIENTS = 32;

  @Override
  public String name() {
    return "multiphase";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    ResultTable table =
        new ResultTable(
            "non_leader_share",
            "cold_cas_share",
            "ops_per_s",
            "cas_p50_us",
            "cas_p99_us",
            "warm_cas",
            "cold_cas",
            "prepares_per_cas");
    ExperimentReport report = new ExperimentReport(name(), table);
    Charts.Series chart = new Charts.Series();
    Path dir = Systems.freshDir(o, name(), "frsm");
    FrsmLocalCluster frsm = FrsmLocalCluster.start(dir, 2);
    try (FrsmClient check = frsm.checkClient()) {
      try (FrsmClient warm = frsm.client()) {
        Systems.warmUp(warm, o, "frsm");
      }
      for (double share : o.quick() ? QUICK_FRACTIONS : FULL_FRACTIONS) {
        AtomicReference<CoreStats> before = new AtomicReference<>();
        Point p;
        try (FrsmClient client = frsm.client(FrsmLocalCluster.Access.EMBEDDED_LEADER, share)) {
          WorkloadSpec spec = WorkloadSpec.paper(o.keyCount(), CLIENTS, o.step(0.7, 5));
          String label = String.format(Locale.ROOT, "frsm non-leader %.2f", share);
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
        long rounds = d.casWarm() + d.casCold();
        double cold = d.multiPhaseFraction();
        table.add(
            share,
            cold,
            p.opsPerSecond(),
            p.casP50Micros(),
            p.casP99Micros(),
            d.casWarm(),
            d.casCold(),
            rounds == 0 ? 0.0 : (double) d.preparesSent() / rounds);
        chart.add("frsm", cold * 100, p.opsPerSecond());
      }
    } finally {
      Systems.stop(frsm, dir);
    }
    report.note(
        "cold_cas_share is measured by the nodes (CoreStats casCold / (casWarm + casCold)) over"
            + " the measured step; it counts the counter check's increments too");
    report.files.add(
        Charts.line(
            o.out().resolve("paper-multiphase.png"),
            "Throughput vs operations needing a multi-phase protocol",
            "CAS needing a prepare (%)",
            "throughput (ops/s)",
            chart,
            false));
    return report;
  }
}
