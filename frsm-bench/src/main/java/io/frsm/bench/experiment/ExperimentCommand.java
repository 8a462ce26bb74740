package io.frsm.bench.experiment;

import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java -jar frsm-bench.jar experiment <name|all> [--quick] [--out DIR] [--seconds S] [--keys
 * N] [--system-warmup S] [--group-commit-window auto|MICROS] [--zookeeper-flush-delay MS]}: runs
 * the paper-evaluation experiments of issue 5, prints each result table and writes {@code
 * <name>.csv}, {@code <name>.json}, {@code <name>.md} and the PNG charts to the output directory.
 */
public final class ExperimentCommand {
  /**
   * ZooKeeper's servers and clients log every session and election at INFO; the result tables would
   * drown. Held here so the configured loggers are not collected.
   */
  private static final List<java.util.logging.Logger> QUIET =
      List.of(
          java.util.logging.Logger.getLogger("org.apache.zookeeper"),
          java.util.logging.Logger.getLogger("org.apache.curator"));

  private ExperimentCommand() {}

  /** Every experiment by name, in the order {@code all} runs them. */
  static Map<String, Experiment> experiments() {
    Map<String, Experiment> all = new LinkedHashMap<>();
    for (Experiment e :
        List.of(
            new LatencyThroughputExperiment(),
            new CoresExperiment(),
            new MultiPhaseExperiment(),
            new ReadModesExperiment(),
            new RecoveryExperiment(),
            new ZooKeeperExperiment())) {
      all.put(e.name(), e);
    }
    return all;
  }

  public static String usage() {
    return "usage: java -jar frsm-bench.jar experiment <"
        + String.join("|", experiments().keySet())
        + "|all> [--quick] [--out DIR] [--seconds S] [--keys N] [--system-warmup S]"
        + " [--group-commit-window auto|MICROS] [--zookeeper-flush-delay MS]";
  }

  /** Runs the command; returns the process exit code (0 when every sanity check held). */
  public static int main(String[] args, PrintStream out) throws Exception {
    if (args.length == 0) {
      out.println(usage());
      return 2;
    }
    for (java.util.logging.Logger l : QUIET) {
      l.setLevel(java.util.logging.Level.WARNING);
    }
    ExperimentOptions options;
    try {
      if (args[0].equals(PointCommand.NAME)) {
        return PointCommand.main(java.util.Arrays.copyOfRange(args, 1, args.length), out);
      }
      options = parse(args);
    } catch (IllegalArgumentException e) { // NumberFormatException included
      out.println("bad arguments: " + e.getMessage());
      out.println(args[0].equals(PointCommand.NAME) ? PointCommand.USAGE : usage());
      return 2;
    }
    List<Experiment> selected = new ArrayList<>();
    if (args[0].equals("all")) {
      selected.addAll(experiments().values());
    } else if (experiments().containsKey(args[0])) {
      selected.add(experiments().get(args[0]));
    } else {
      out.println("unknown experiment " + args[0] + "\n" + usage());
      return 2;
    }
    boolean sane = true;
    for (Experiment e : selected) {
      long start = System.nanoTime();
      ExperimentReport r = e.run(options);
      double seconds = (System.nanoTime() - start) / 1e9;
      write(options.out(), r);
      print(out, r, seconds);
      sane &= sane(r);
    }
    return sane ? 0 : 1;
  }

  /** The sanity CI asserts: throughput in every step, no errors, no lost acknowledged writes. */
  static boolean sane(ExperimentReport r) {
    return r.minOpsPerSecond > 0
        && r.table.rowCount() > 0
        && r.errors == 0
        && r.lostWrites.isEmpty()
        && r.counterIncrements > 0;
  }

  static ExperimentOptions parse(String[] args) {
    boolean quick = false;
    Path out = ExperimentOptions.DEFAULT_OUT;
    double seconds = 0;
    long keys = 0;
    double systemWarmup = -1;
    GroupCommitWindow groupCommitWindow = CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW;
    long zookeeperFlushDelay = 0;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> quick = true;
        case "--out" -> out = Path.of(value(args, ++i, a));
        case "--seconds" -> seconds = Double.parseDouble(value(args, ++i, a));
        case "--keys" -> keys = Long.parseLong(value(args, ++i, a));
        case "--system-warmup" -> systemWarmup = Double.parseDouble(value(args, ++i, a));
        case "--group-commit-window" -> groupCommitWindow = groupCommitWindow(value(args, ++i, a));
        case "--zookeeper-flush-delay" -> zookeeperFlushDelay = Long.parseLong(value(args, ++i, a));
        default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
      }
    }
    return new ExperimentOptions(
        quick,
        out,
        seconds,
        keys,
        systemWarmup,
        groupCommitWindow,
        zookeeperFlushDelay,
        System.err::println);
  }

  /** {@code auto}, or a fixed window in microseconds (0: off). */
  static GroupCommitWindow groupCommitWindow(String value) {
    if (value.equalsIgnoreCase(GroupCommitWindow.AUTO_NAME)) {
      return GroupCommitWindow.AUTO;
    }
    long micros = Long.parseLong(value);
    if (micros < 0) {
      throw new IllegalArgumentException("--group-commit-window must be auto or >= 0");
    }
    return GroupCommitWindow.fixed(Duration.ofNanos(Math.multiplyExact(micros, 1_000L)));
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  static void write(Path out, ExperimentReport r) throws IOException {
    Files.createDirectories(out);
    Files.writeString(out.resolve(r.name + ".csv"), r.table.csv(), StandardCharsets.UTF_8);
    Files.writeString(out.resolve(r.name + ".md"), markdown(r), StandardCharsets.UTF_8);
    StringBuilder json = new StringBuilder("{\n\"experiment\": ").append(ResultTable.quote(r.name));
    json.append(",\n\"rows\": ").append(r.table.json().strip());
    json.append(",\n\"notes\": [");
    for (int i = 0; i < r.notes.size(); i++) {
      json.append(i == 0 ? "" : ", ").append(ResultTable.quote(r.notes.get(i)));
    }
    json.append(
        String.format(
            Locale.ROOT,
            "],\n\"sanity\": {\"minOpsPerSecond\": %.1f, \"errors\": %d, \"counterIncrements\": %d,"
                + " \"lostOrDoubled\": %d, \"safeRetries\": %d}\n}\n",
            r.minOpsPerSecond,
            r.errors,
            r.counterIncrements,
            r.lostWrites.size(),
            r.safeRetries));
    Files.writeString(out.resolve(r.name + ".json"), json, StandardCharsets.UTF_8);
  }

  private static String markdown(ExperimentReport r) {
    StringBuilder sb = new StringBuilder(r.table.markdown()).append('\n');
    for (String n : r.notes) {
      sb.append("- ").append(n).append('\n');
    }
    return sb.toString();
  }

  private static void print(PrintStream out, ExperimentReport r, double seconds) {
    out.printf(Locale.ROOT, "%n== %s (%.1f s) ==%n", r.name, seconds);
    out.print(r.table.render());
    for (String n : r.notes) {
      out.println("  * " + n);
    }
    out.println("  " + r.sanityLine());
    for (String lost : r.lostWrites) {
      out.println("  LOST: " + lost);
    }
    for (Path f : r.files) {
      out.println("  wrote " + f);
    }
  }
}
