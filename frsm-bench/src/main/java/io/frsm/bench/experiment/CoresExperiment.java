package io.frsm.bench.experiment;

import io.frsm.bench.lsm.TempDirs;
import io.frsm.server.config.CorePlacement;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Experiment 2 (Figures 10/13): throughput and p99 as the cores given to the systems grow. Each
 * configuration runs in a child JVM pinned with {@code taskset} to the first N CPUs (and told N by
 * {@code -XX:ActiveProcessorCount}), so the whole cluster — its three nodes and the clients — share
 * N cores; frsm also varies its Netty event-loop threads per node and its core shards per node
 * ({@code consensus.coreThreads}: 1, or 2 with one event loop). The cRSM baseline runs over the
 * same Netty transport with one event loop per node. This machine has few cores, which bounds the
 * curve.
 */
final class CoresExperiment implements Experiment {
  private static final long CHILD_TIMEOUT_SECONDS = 600;
  static final int CLIENTS = 32;

  /**
   * One configuration: the system, its batch or transport threads, frsm's core shards per node, and
   * the CPUs it gets.
   */
  record Config(String system, int knob, int coreThreads, int cpus) {
    Config(String system, int knob, int cpus) {
      this(system, knob, 1, cpus);
    }

    String label() {
      if (!system.equals("frsm")) {
        return "cRSM b" + knob;
      }
      return "frsm, "
          + knob
          + " event loops/node"
          + (coreThreads == 1 ? "" : ", " + coreThreads + " core shards/node")
          + (CorePlacement.AUTO.onTransportLoops(knob, coreThreads) ? ", core on the loop" : "");
    }
  }

  @Override
  public String name() {
    return "cores";
  }

  @Override
  public ExperimentReport run(ExperimentOptions o) throws Exception {
    int machineCpus = Runtime.getRuntime().availableProcessors();
    boolean taskset =
        new File("/usr/bin/taskset").canExecute() || new File("/bin/taskset").canExecute();
    List<Config> configs = new ArrayList<>();
    for (int cpus = 1; cpus <= machineCpus; cpus *= 2) {
      if (o.quick()) {
        configs.add(new Config("frsm", 2, cpus));
      } else {
        configs.add(new Config("frsm", 1, cpus));
        configs.add(new Config("frsm", 2, cpus));
        configs.add(new Config("frsm", 4, cpus));
        configs.add(new Config("frsm", 1, 2, cpus));
        configs.add(new Config("crsm", 128, cpus));
      }
    }
    if (o.quick()) {
      configs.add(new Config("crsm", 128, 1));
    }
    ResultTable table =
        new ResultTable(
            "system",
            "cpus",
            "clients",
            "ops_per_s",
            "get_p99_us",
            "cas_p50_us",
            "cas_p99_us",
            "cpu_us_per_op",
            "cpus_busy");
    ExperimentReport report = new ExperimentReport(name(), table);
    Charts.Series chart = new Charts.Series();
    double seconds = o.step(0.7, 5).toMillis() / 1000.0;
    // Each configuration is a fresh JVM: it gets the start-up warm-up (JIT) before its step.
    double warmup = Math.max(o.warmup().toMillis(), o.systemWarmup().toMillis()) / 1000.0;
    for (Config c : configs) {
      Path dir =
          Systems.freshDir(
              o, name(), c.system() + "-" + c.knob() + "-" + c.coreThreads() + "-" + c.cpus());
      List<String> cmd = new ArrayList<>();
      if (taskset) {
        cmd.addAll(List.of("taskset", "-c", c.cpus() == 1 ? "0" : "0-" + (c.cpus() - 1)));
      }
      cmd.addAll(
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-XX:ActiveProcessorCount=" + c.cpus(),
              "-Xmx1g",
              "-cp",
              System.getProperty("java.class.path"),
              "io.frsm.bench.Main",
              "experiment",
              PointCommand.NAME,
              "--system",
              c.system(),
              "--transport-threads",
              c.system().equals("frsm") ? Integer.toString(c.knob()) : "1",
              "--batch",
              c.system().equals("frsm") ? "1" : Integer.toString(c.knob()),
              "--core-threads",
              Integer.toString(c.coreThreads()),
              "--clients",
              Integer.toString(CLIENTS),
              "--seconds",
              Double.toString(seconds),
              "--warmup",
              Double.toString(warmup),
              "--keys",
              Long.toString(o.keyCount()),
              "--data",
              dir.toAbsolutePath().toString()));
      Map<String, Double> point = runChild(cmd, c.label() + " cpus=" + c.cpus(), o);
      TempDirs.deleteRecursively(dir);
      table.add(
          c.label(),
          c.cpus(),
          CLIENTS,
          point.get("ops"),
          point.get("get_p99"),
          point.get("cas_p50"),
          point.get("cas_p99"),
          point.get("cpu_us_per_op"),
          point.get("cpus_busy"));
      chart.add(c.label(), c.cpus(), point.get("ops"));
      report.minOpsPerSecond = Math.min(report.minOpsPerSecond, point.get("ops"));
      report.errors += Math.round(point.get("errors"));
      report.counterIncrements += Math.round(point.get("increments"));
      report.safeRetries += Math.round(point.get("retries"));
      if (point.get("lost") > 0) {
        report.lostWrites.add(c.label() + " cpus=" + c.cpus() + ": counter check failed");
      }
    }
    report.note(
        "this machine has "
            + machineCpus
            + " CPUs (a shared VM): the curve stops there; clients and all three nodes share the"
            + " CPUs given"
            + (taskset ? " (taskset)" : " (no taskset here: only -XX:ActiveProcessorCount)"));
    report.note(
        "cpu_us_per_op and cpus_busy are each child JVM's own (its three nodes, clients, JIT and"
            + " GC) over its measured step; cpus_busy cannot exceed the CPUs given");
    report.files.add(
        Charts.line(
            o.out().resolve("paper-cores.png"),
            "Throughput vs CPUs (whole cluster + clients)",
            "CPUs",
            "throughput (ops/s)",
            chart,
            false));
    return report;
  }

  private static Map<String, Double> runChild(List<String> cmd, String label, ExperimentOptions o)
      throws Exception {
    o.progress().accept("cores: running " + label);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String pointLine = null;
    List<String> tail = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith(PointCommand.PREFIX)) {
          pointLine = line;
        } else {
          tail.add(line);
          if (tail.size() > 20) {
            tail.remove(0);
          }
        }
      }
    }
    if (!p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(label + ": child JVM did not finish");
    }
    if (p.exitValue() != 0 || pointLine == null) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "%s: child JVM exited %d without a result; its last output:%n%s",
              label,
              p.exitValue(),
              String.join("\n", tail)));
    }
    return PointCommand.parse(pointLine);
  }
}
