package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.bench.crsm.CrsmCluster;
import io.frsm.consensus.core.CoreStats;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.workload.WorkloadSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code experiment point --system frsm|crsm [--batch N] [--transport-threads N] [--core-threads N]
 * [--core-on-loop auto|true|false] [--group-commit-window auto|MICROS] [--client embedded|thin]
 * --clients N --seconds S --keys N --data DIR}: one measured step in this JVM (frsm's client:
 * embedded at the key's leader, or the thin client over TCP), its result printed as one {@code
 * POINT key=value ...} line. The cores experiment runs it in child JVMs pinned to a set of CPUs.
 */
final class PointCommand {
  static final String NAME = "point";
  static final String PREFIX = "POINT ";
  static final String USAGE =
      "usage: java -jar frsm-bench.jar experiment point --system frsm|crsm [--batch N]"
          + " [--transport-threads N] [--core-threads N] [--core-on-loop auto|true|false]"
          + " [--group-commit-window auto|MICROS] [--client embedded|thin] --clients N"
          + " --seconds S [--warmup S]"
          + " --keys N [--distribution zipf|uniform] --data DIR";

  private PointCommand() {}

  static int main(String[] args, PrintStream out) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value, got " + args[i]);
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    String systemName = required(a, "system");
    Path dir = Path.of(required(a, "data"));
    int clients = Integer.parseInt(required(a, "clients"));
    Duration step =
        Duration.ofMillis(Math.round(Double.parseDouble(required(a, "seconds")) * 1000));
    Duration warmup =
        Duration.ofMillis(Math.round(Double.parseDouble(a.getOrDefault("warmup", "1")) * 1000));
    long keys = Long.parseLong(required(a, "keys"));
    boolean thin =
        switch (a.getOrDefault("client", "embedded")) {
          case "embedded" -> false;
          case "thin" -> true;
          default -> throw new IllegalArgumentException("--client is embedded or thin");
        };
    boolean uniform =
        switch (a.getOrDefault("distribution", "zipf")) {
          case "zipf" -> false;
          case "uniform" -> true;
          default -> throw new IllegalArgumentException("--distribution is zipf or uniform");
        };
    WorkloadSpec paper = WorkloadSpec.paper(keys, clients, step);
    if (thin && !systemName.equals("frsm")) {
      throw new IllegalArgumentException("--client thin needs --system frsm");
    }
    KvSystem system =
        switch (systemName) {
          case "frsm" ->
              FrsmLocalCluster.start(
                  dir,
                  FrsmLocalCluster.Settings.DEFAULT
                      .transportThreads(Integer.parseInt(a.getOrDefault("transport-threads", "0")))
                      .coreThreads(Integer.parseInt(a.getOrDefault("core-threads", "0")))
                      .corePlacement(placement(a.getOrDefault("core-on-loop", "auto")))
                      .groupCommitWindow(
                          a.containsKey("group-commit-window")
                              ? ExperimentCommand.groupCommitWindow(a.get("group-commit-window"))
                              : FrsmLocalCluster.Settings.DEFAULT.groupCommitWindow()));
          case "crsm" ->
              CrsmSystem.start(
                  dir,
                  Integer.parseInt(a.getOrDefault("batch", "128")),
                  Integer.parseInt(
                      a.getOrDefault(
                          "transport-threads",
                          Integer.toString(CrsmCluster.defaultTransportThreads()))));
          default -> throw new IllegalArgumentException("unknown --system " + systemName);
        };
    Point p;
    java.util.concurrent.atomic.AtomicReference<CoreStats> before =
        new java.util.concurrent.atomic.AtomicReference<>(CoreStats.ZERO);
    CoreStats during = null;
    java.util.concurrent.atomic.AtomicReference<FrsmLocalCluster.GroupCommits> syncsBefore =
        new java.util.concurrent.atomic.AtomicReference<>(FrsmLocalCluster.GroupCommits.ZERO);
    FrsmLocalCluster.GroupCommits syncsDuring = null;
    try (FrsmClient client =
            thin
                ? ((FrsmLocalCluster) system).client(FrsmLocalCluster.Access.THIN, 0)
                : system.client();
        FrsmClient check = system.checkClient()) {
      p =
          Measurement.run(
              client,
              check,
              uniform ? paper.uniform() : paper,
              warmup,
              systemName,
              s -> {},
              () -> {
                before.set(coreStats(system));
                syncsBefore.set(groupCommits(system));
              });
      during = coreStats(system).minus(before.get());
      syncsDuring = groupCommits(system).minus(syncsBefore.get());
    } finally {
      Systems.stop(system, dir);
    }
    out.println(
        format(p)
            + (system instanceof FrsmLocalCluster ? modes(during) + syncs(syncsDuring, p) : ""));
    return 0;
  }

  private static CoreStats coreStats(KvSystem system) {
    return system instanceof FrsmLocalCluster frsm ? frsm.coreStats() : CoreStats.ZERO;
  }

  /** How frsm's nodes served the measured step (the counter check's calls included). */
  private static String modes(CoreStats d) {
    return String.format(
        Locale.ROOT,
        " leader_only_reads=%d quorum_reads=%d warm_cas=%d cold_cas=%d"
            + " mismatches=%d leader_only_mismatches=%d",
        d.readsLeaderOnly(),
        d.readsQuorum() + d.readsMutatingQuorum(),
        d.casWarm(),
        d.casCold(),
        d.mismatches(),
        d.mismatchesLeaderOnly());
  }

  /**
   * The measured step's group commits: syncs per completed operation, records per sync, the share
   * of syncs that waited out a group-commit window, the records a window gathered and how long it
   * lasted, on average.
   */
  private static String syncs(FrsmLocalCluster.GroupCommits d, Point p) {
    double ops = p.result().totalOperations();
    return String.format(
        Locale.ROOT,
        " syncs_per_op=%.3f records_per_sync=%.2f windows_per_sync=%.2f gathered_per_window=%.2f"
            + " window_us=%.0f",
        d.syncs() / Math.max(1, ops),
        d.records() / (double) Math.max(1, d.syncs()),
        d.windows() / (double) Math.max(1, d.syncs()),
        d.gathered() / (double) Math.max(1, d.windows()),
        d.windowNanos() / 1e3 / Math.max(1, d.windows()));
  }

  private static FrsmLocalCluster.GroupCommits groupCommits(KvSystem system) {
    return system instanceof FrsmLocalCluster frsm
        ? frsm.groupCommits()
        : FrsmLocalCluster.GroupCommits.ZERO;
  }

  private static String required(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("point needs --" + key);
    }
    return v;
  }

  static String format(Point p) {
    return String.format(
        Locale.ROOT,
        PREFIX
            + "ops=%.1f get_p50=%.1f get_p99=%.1f cas_p50=%.1f cas_p99=%.1f errors=%d"
            + " increments=%d lost=%d retries=%d cpu_us_per_op=%.1f cpus_busy=%.3f",
        p.opsPerSecond(),
        p.getP50Micros(),
        p.getP99Micros(),
        p.casP50Micros(),
        p.casP99Micros(),
        p.errors(),
        p.counterIncrements(),
        p.lostOrDoubled().size(),
        p.safeRetries(),
        p.cpuMicrosPerOp(),
        p.cpusBusy());
  }

  /** The key=value fields of a POINT line. */
  static Map<String, Double> parse(String line) {
    if (!line.startsWith(PREFIX)) {
      throw new IllegalArgumentException("not a POINT line: " + line);
    }
    Map<String, Double> fields = new HashMap<>();
    for (String kv : line.substring(PREFIX.length()).trim().split(" ")) {
      int eq = kv.indexOf('=');
      fields.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
    }
    return fields;
  }

  private static CorePlacement placement(String value) {
    CorePlacement p = CorePlacement.parse(value);
    if (p == null) {
      throw new IllegalArgumentException("--core-on-loop is auto, true or false: " + value);
    }
    return p;
  }
}
