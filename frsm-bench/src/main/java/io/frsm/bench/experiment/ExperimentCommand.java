package io.frsm.bench.experiment;

import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import io.frsm.server.cli.CommandLines;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code java -jar frsm-bench.jar experiment <name|all> [--quick] [--out DIR] [--seconds S] [--keys
 * N] [--system-warmup S] [--group-commit-window auto|MICROS] [--zookeeper-flush-delay MS]}: runs
 * the paper-evaluation experiments of issue 5, prints each result table and writes {@code
 * <name>.csv}, {@code <name>.json}, {@code <name>.md} and the PNG charts to the output directory.
 * {@code experiment point ...} is one measured step ({@link PointCommand}). Exit code 0 when every
 * sanity check held, 1 when one did not.
 */
@Command(
    name = "experiment",
    description =
        "Runs the paper-evaluation experiments: result tables, CSV/JSON/Markdown, charts.",
    synopsisSubcommandLabel = "[point]")
public final class ExperimentCommand implements Callable<Integer> {
  @Parameters(
      arity = "0..1",
      paramLabel = "NAME",
      description = "An experiment (${COMPLETION-CANDIDATES}), or all of them in that order.",
      completionCandidates = Names.class)
  String name;

  @Option(names = "--quick", description = "Short steps, sanity only (~1 min for all).")
  boolean quick;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where results and charts go (default: ${DEFAULT-VALUE}).")
  Path out = ExperimentOptions.DEFAULT_OUT;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Measured seconds per step (default: each experiment's own).")
  double seconds;

  @Option(
      names = "--keys",
      paramLabel = "N",
      description = "Key count (default: 10,000 quick, 100,000 full).")
  long keys;

  @Option(
      names = "--system-warmup",
      paramLabel = "S",
      description =
          "Unmeasured paper workload on each system before its first step (default: 60"
              + " full, 0 quick).")
  double systemWarmup = -1;

  @Option(
      names = "--group-commit-window",
      paramLabel = "auto|MICROS",
      converter = GroupCommitWindowConverter.class,
      description =
          "frsm's lsm.commitLogGroupCommitWindow in the zookeeper experiment (default:" + " auto).")
  GroupCommitWindow groupCommitWindow = CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW;

  @Option(
      names = "--zookeeper-flush-delay",
      paramLabel = "MS",
      description = "ZooKeeper's zookeeper.flushDelay in the zookeeper experiment (default: 0).")
  long zookeeperFlushDelay;

  @Option(
      names = "--lease",
      paramLabel = "MS",
      description =
          "frsm's range lease (consensus.lease) in the recovery experiment, a what-if (default:"
              + " the node default, 2000).")
  Long leaseMillis;

  @Mixin CommandLines.HelpOption help;

  @Spec CommandSpec spec;

  private final PrintStream printed;

  /** Prints result tables to {@code printed} (progress goes to standard error). */
  public ExperimentCommand(PrintStream printed) {
    this.printed = printed;
  }

  /** {@code experiment} and its {@code point} command, printing to {@code printed}. */
  public static CommandLine commandLine(PrintStream printed) {
    CommandLine cl = new CommandLine(new ExperimentCommand(printed));
    cl.addSubcommand(new PointCommand(printed));
    return cl;
  }

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

  /** The experiments' names, for the usage. */
  static final class Names implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return experiments().keySet().iterator();
    }
  }

  /** {@code auto}, or a fixed window in microseconds (0: off). */
  static final class GroupCommitWindowConverter implements ITypeConverter<GroupCommitWindow> {
    @Override
    public GroupCommitWindow convert(String value) {
      if (value.equalsIgnoreCase(GroupCommitWindow.AUTO_NAME)) {
        return GroupCommitWindow.AUTO;
      }
      long micros;
      try {
        micros = Long.parseLong(value);
      } catch (NumberFormatException e) {
        micros = -1;
      }
      if (micros < 0) {
        throw new TypeConversionException("auto or microseconds >= 0, was '" + value + "'");
      }
      return GroupCommitWindow.fixed(Duration.ofNanos(Math.multiplyExact(micros, 1_000L)));
    }
  }

  /** What the command line asked; a usage error if the values do not make options. */
  ExperimentOptions options() {
    try {
      return new ExperimentOptions(
          quick,
          out,
          seconds,
          keys,
          systemWarmup,
          groupCommitWindow,
          zookeeperFlushDelay,
          leaseMillis == null ? null : Duration.ofMillis(leaseMillis),
          System.err::println);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The options of {@code experiment args} (parsed only, nothing run). */
  static ExperimentOptions parse(String... args) {
    ExperimentCommand command = new ExperimentCommand(System.out);
    new CommandLine(command).parseArgs(args);
    return command.options();
  }

  @Override
  public Integer call() throws Exception {
    if (name == null) {
      throw new ParameterException(spec.commandLine(), "which experiment? NAME is required");
    }
    List<Experiment> selected = new ArrayList<>();
    if (name.equals("all")) {
      selected.addAll(experiments().values());
    } else if (experiments().containsKey(name)) {
      selected.add(experiments().get(name));
    } else {
      throw new ParameterException(spec.commandLine(), "unknown experiment '" + name + "'");
    }
    ExperimentOptions options = options();
    boolean sane = true;
    for (Experiment e : selected) {
      long start = System.nanoTime();
      ExperimentReport r = e.run(options);
      double elapsedSeconds = (System.nanoTime() - start) / 1e9;
      write(options.out(), r);
      print(printed, r, elapsedSeconds);
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
