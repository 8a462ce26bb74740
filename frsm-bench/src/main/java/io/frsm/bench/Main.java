package io.frsm.bench;

import io.frsm.bench.experiment.ExperimentCommand;
import io.frsm.bench.quick.QuickCommand;
import io.frsm.server.cli.CliLogging;
import io.frsm.server.cli.CommandLines;
import java.io.PrintStream;
import java.util.logging.Level;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Entry point of {@code frsm-bench.jar} (docs/BENCHMARKS.md).
 *
 * <pre>
 * java -jar frsm-bench/target/frsm-bench.jar quick [--seconds=10] [--threads=32] [--keys=100000]
 * java -jar frsm-bench/target/frsm-bench.jar jmh [JMH arguments]
 * java -jar frsm-bench/target/frsm-bench.jar experiment <name|all> [--quick] [--out DIR] ...
 * java -jar frsm-bench/target/frsm-bench.jar experiment point --system frsm|crsm ...
 * </pre>
 *
 * Exit codes: 0 success, 1 failure (a sanity check or the quick run's operations), 2 wrong command
 * line.
 */
@Command(
    name = "frsm-bench.jar",
    description = "frsm's benchmarks: the engine alone, JMH, the paper's evaluation.",
    synopsisSubcommandLabel = "COMMAND",
    footerHeading = "%n",
    footer = "Exit codes: 0 success, 1 failure, 2 wrong command line.")
public final class Main implements Runnable {
  @Mixin CommandLines.HelpOption help;

  @Spec CommandSpec spec;

  private Main() {}

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a command is needed");
  }

  public static void main(String[] args) {
    // ZooKeeper's servers and clients, Curator and Netty log every session, election and
    // connection at INFO; the result tables would drown. frsm's own INFO lines stay.
    CliLogging.configure(CliLogging.defaults(Level.INFO), System.getenv());
    System.exit(run(args, System.out, System.err));
  }

  /** Runs {@code frsm-bench.jar args} in this JVM; returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    return commandLine(out, err).execute(args);
  }

  static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new Main());
    cl.addSubcommand(new QuickCommand(out));
    cl.addSubcommand(JmhCommand.commandLine());
    cl.addSubcommand(ExperimentCommand.commandLine(out));
    cl.addSubcommand(new CommandLines.Help());
    return CommandLines.configure(cl, out, err);
  }
}
