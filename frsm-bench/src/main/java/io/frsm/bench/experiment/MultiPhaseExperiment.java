package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Experiment 3 (Figure 16): frsm's throughput as the share of operations that need a multi-phase
 * (prepare + accept) protocol grows. Every call goes to the key's leader (leases on, as in
 * production); each step runs a fresh cluster whose nodes prepare a chosen share of their warm CAS
 * anyway ({@code FrsmNodeBuilder.forcedColdCasShare}). Sending calls to other nodes no longer
 * varies it: a node that does not lead a range forwards to its leader. The x axis is the share
 * measured by the nodes ({@code frsm.cas.rounds{mode=cold}} over all CAS rounds), not the share
 * asked for: first writes of a key after its create are cold anyway. The JVM warms up once, on the
 * first step's cluster.
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
            "forced_cold_share",
            "cold_cas_share",
            "ops_per_s",
            "cas_p50_us",
            "cas_p99_us",
            "warm_cas",
            "cold_cas",
            "prepares_per_cas",
            "cpu_us_per_op",
            "cpus_busy");
    ExperimentReport report = new ExperimentReport(name(), table);
    Charts.Series chart = new Charts.Series();
    boolean first = true;
    for (double share : o.quick() ? QUICK_FRACTIONS : FULL_FRACTIONS) {
      Path dir = Systems.freshDir(o, name(), String.format(Locale.ROOT, "frsm-%.2f", share));
      FrsmLocalCluster frsm =
          FrsmLocalCluster.start(dir, FrsmLocalCluster.Settings.DEFAULT.forcedColdCasShare(share));
      try (FrsmClient check = frsm.checkClient();
          FrsmClient client = frsm.client()) {
        if (first) {
          Systems.warmUp(client, o, "frsm");
          first = false;
        }
        WorkloadSpec spec = WorkloadSpec.paper(o.keyCount(), CLIENTS, o.step(0.7, 5));
        String label = String.format(Locale.ROOT, "frsm forced cold %.2f", share);
        Measurement.OnFrsm step =
            Measurement.run(
                frsm, client, check, new Measurement.Step(spec, o.warmup(), label, o.progress()));
        Point p = step.point();
        report.account(label, p);
        CoreStats d = step.counted().core();
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
            rounds == 0 ? 0.0 : (double) d.preparesSent() / rounds,
            p.cpuMicrosPerOp(),
            p.cpusBusy());
        chart.add("frsm", cold * 100, p.opsPerSecond());
      } finally {
        Systems.stop(frsm, dir);
      }
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
