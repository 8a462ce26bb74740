package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 1 (Figures 8–9): latency against throughput for frsm and cRSM with batch 1, 64 and
 * 128, on the paper's workload with Zipf 0.99 keys and with uniform keys. Closed loop: each step
 * raises the number of client threads, which moves along the curve up to saturation.
 */
final class LatencyThroughputExperiment implements Experiment {
  static final int[] QUICK_CLIENTS = {16};
  static final int[] FULL_CLIENTS = {1, 4, 16, 64, 128};

  @Override
  public String name() {
    return "latency-throughput";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    ResultTable table = new ResultTable(Point.tableColumns("keys", "system", "clients"));
    ExperimentReport report = new ExperimentReport(name(), table);
    int[] steps = o.quick() ? QUICK_CLIENTS : FULL_CLIENTS;
    Map<String, Charts.Series> charts = new LinkedHashMap<>();
    charts.put("zipf", new Charts.Series());
    charts.put("uniform", new Charts.Series());
    Map<String, Point> peak = new LinkedHashMap<>(); // "keys/system" -> its fastest step
    List<String> systems = new ArrayList<>(List.of("frsm"));
    for (int b : Systems.CRSM_BATCHES) {
      systems.add("cRSM b" + b);
    }
    for (String name : systems) {
      Path dir = Systems.freshDir(o, name(), name);
      KvSystem system =
          name.equals("frsm")
              ? FrsmLocalCluster.start(dir, 2)
              : CrsmSystem.start(dir, Integer.parseInt(name.substring("cRSM b".length())));
      try (FrsmClient client = system.client();
          FrsmClient check = system.checkClient()) {
        Systems.warmUp(client, o, name);
        for (String keys : charts.keySet()) {
          for (int clients : steps) {
            WorkloadSpec spec = WorkloadSpec.paper(o.keyCount(), clients, o.step(0.7, 5));
            if (keys.equals("uniform")) {
              spec = spec.uniform();
            }
            String label = String.format(Locale.ROOT, "%s %s c=%d", name, keys, clients);
            Point p =
                Measurement.run(
                    client, check, new Measurement.Step(spec, o.warmup(), label, o.progress()));
            report.account(label, p);
            table.add(p.tableRow(keys, name, clients));
            charts.get(keys).add(name, p.opsPerSecond(), p.casP50Micros() / 1000.0);
            peak.merge(keys + "/" + name, p, Point::faster);
          }
        }
      } finally {
        Systems.stop(system, dir);
      }
    }
    for (String keys : charts.keySet()) {
      Point frsmPeak = peak.get(keys + "/frsm");
      Point crsmPeak = peak.get(keys + "/cRSM b128");
      double frsm = frsmPeak == null ? 0 : frsmPeak.opsPerSecond();
      double crsm = crsmPeak == null ? 0 : crsmPeak.opsPerSecond();
      double target = keys.equals("zipf") ? 5.6 : 2.3;
      report.note(
          String.format(
              Locale.ROOT,
              "%s: peak frsm %.0f ops/s, peak cRSM b128 %.0f ops/s: ratio %.2fx (target >= %.1fx)",
              keys,
              frsm,
              crsm,
              crsm > 0 ? frsm / crsm : Double.NaN,
              target));
      report.noteCpuPerOpAtPeak(keys + ": ", "frsm", frsmPeak, "cRSM b128", crsmPeak);
      report.files.add(
          Charts.line(
              o.out().resolve("paper-latency-throughput-" + keys + ".png"),
              "Latency vs throughput, " + (keys.equals("zipf") ? "Zipf 0.99" : "uniform") + " keys",
              "throughput (ops/s)",
              "CAS write p50 (ms)",
              charts.get(keys),
              true));
    }
    return report;
  }
}
