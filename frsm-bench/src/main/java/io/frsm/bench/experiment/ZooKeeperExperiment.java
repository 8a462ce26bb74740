package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 6: the paper's workload on a three-server ZooKeeper ensemble and on three frsm nodes,
 * side by side: same client threads, both reached over TCP (frsm's thin client, ZooKeeper's
 * client), both fsyncing every write before acknowledging it.
 */
final class ZooKeeperExperiment implements Experiment {
  static final int[] QUICK_CLIENTS = {16};

  /** The client counts of experiment 1's upper steps: neither system peaks before 64. */
  static final int[] FULL_CLIENTS = {4, 16, 64, 128};

  @Override
  public String name() {
    return "zookeeper";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    ResultTable table = new ResultTable(Point.tableColumns("system", "clients"));
    ExperimentReport report = new ExperimentReport(name(), table);
    int[] steps = o.quick() ? QUICK_CLIENTS : FULL_CLIENTS;
    Map<String, Map<Integer, Double>> throughput = new LinkedHashMap<>();
    Map<String, Point> peak = new LinkedHashMap<>(); // system -> its fastest step
    Charts.Series chart = new Charts.Series();
    for (String name : new String[] {"frsm", "ZooKeeper"}) {
      Path dir = Systems.freshDir(o, name(), name);
      FrsmLocalCluster frsm = null;
      KvSystem system;
      if (name.equals("frsm")) {
        frsm =
            FrsmLocalCluster.start(
                dir, FrsmLocalCluster.Settings.DEFAULT.groupCommitWindow(o.groupCommitWindow()));
        system = frsm;
      } else {
        system =
            ZooKeeperEnsemble.start(dir, ZooKeeperEnsemble.SERVERS, o.zookeeperFlushDelayMillis());
      }
      try (FrsmClient client =
              frsm != null ? frsm.client(FrsmLocalCluster.Access.THIN, 0) : system.client();
          FrsmClient check = system.checkClient()) {
        Systems.warmUp(client, o, name);
        for (int clients : steps) {
          WorkloadSpec spec = WorkloadSpec.paper(o.keyCount(), clients, o.step(0.7, 5));
          String label = String.format(Locale.ROOT, "%s c=%d", name, clients);
          Point p =
              Measurement.run(
                  client, check, new Measurement.Step(spec, o.warmup(), label, o.progress()));
          report.account(label, p);
          table.add(p.tableRow(name, clients));
          peak.merge(name, p, Point::faster);
          throughput
              .computeIfAbsent(name, n -> new LinkedHashMap<>())
              .put(clients, p.opsPerSecond());
          chart.add(name, clients, p.opsPerSecond());
        }
      } finally {
        Systems.stop(system, dir);
      }
    }
    for (int clients : steps) {
      double f = throughput.get("frsm").get(clients);
      double z = throughput.get("ZooKeeper").get(clients);
      report.note(
          String.format(
              Locale.ROOT,
              "%d clients: frsm %.0f ops/s, ZooKeeper %.0f ops/s: ratio %.2fx (target >= 3x)",
              clients,
              f,
              z,
              z > 0 ? f / z : Double.NaN));
    }
    Point frsmPeak = peak.get("frsm");
    Point zkPeak = peak.get("ZooKeeper");
    report.note(
        String.format(
            Locale.ROOT,
            "peak against peak: frsm %.0f ops/s (%d clients), ZooKeeper %.0f ops/s (%d clients):"
                + " ratio %.2fx (target >= 3x)",
            frsmPeak.opsPerSecond(),
            clientsAt(throughput.get("frsm"), frsmPeak.opsPerSecond()),
            zkPeak.opsPerSecond(),
            clientsAt(throughput.get("ZooKeeper"), zkPeak.opsPerSecond()),
            zkPeak.opsPerSecond() > 0
                ? frsmPeak.opsPerSecond() / zkPeak.opsPerSecond()
                : Double.NaN));
    report.noteCpuPerOpAtPeak("", "frsm", frsmPeak, "ZooKeeper", zkPeak);
    report.note(
        "both fsync every acknowledged write (ZooKeeper forceSync=yes; frsm's commit log group"
            + " commit); ZooKeeper reads are served by the session's server without a sync"
            + " (sequentially consistent), frsm's are linearizable");
    report.note(
        String.format(
            Locale.ROOT,
            "frsm's group-commit window (lsm.commitLogGroupCommitWindow): %s%s; ZooKeeper's"
                + " flushDelay: %d ms%s",
            o.groupCommitWindow(),
            o.groupCommitWindow().equals(CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW)
                ? " (its default)"
                : "",
            o.zookeeperFlushDelayMillis(),
            o.zookeeperFlushDelayMillis() == 0 ? " (its default)" : ""));
    report.files.add(
        Charts.line(
            o.out().resolve("paper-zookeeper.png"),
            "frsm vs ZooKeeper, 3 servers, paper workload",
            "client threads",
            "throughput (ops/s)",
            chart,
            false));
    return report;
  }

  /** The client count of the step that measured {@code opsPerSecond}. */
  private static int clientsAt(Map<Integer, Double> steps, double opsPerSecond) {
    for (Map.Entry<Integer, Double> step : steps.entrySet()) {
      if (step.getValue() == opsPerSecond) {
        return step.getKey();
      }
    }
    throw new IllegalStateException("no step measured " + opsPerSecond + " ops/s");
  }
}
