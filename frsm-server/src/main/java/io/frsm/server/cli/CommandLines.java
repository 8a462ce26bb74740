package io.frsm.server.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The conventions of frsm's command lines ({@code frsm} and {@code frsm-bench.jar}) on top of
 * picocli: a wrong command line prints one line, {@code NAME: what was wrong}, then the usage of
 * the (sub)command it was for, and exits 2; a command that fails prints {@code NAME COMMAND failed:
 * exception} (no stack trace: the message says what happened) and exits 1. A command's own exit
 * code is its {@code call()} result.
 */
public final class CommandLines {
  /** A wrong command line. */
  public static final int USAGE = CommandLine.ExitCode.USAGE;

  /** The command ran and failed. */
  public static final int FAILED = CommandLine.ExitCode.SOFTWARE;

  private CommandLines() {}

  /**
   * Makes {@code cl} print to {@code out} and {@code err} with frsm's conventions. REQUIRES: every
   * subcommand is added (the conventions are set on each).
   */
  public static CommandLine configure(CommandLine cl, PrintStream out, PrintStream err) {
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    cl.setParameterExceptionHandler(CommandLines::wrongCommandLine);
    cl.setExecutionExceptionHandler(
        (e, failed, parsed) -> {
          failed.getErr().println(failed.getCommandSpec().qualifiedName() + " failed: " + e);
          return FAILED;
        });
    lowerCaseUsageHeading(cl);
    return cl;
  }

  /** "usage: frsm local ...", as the rest of frsm's messages, on every (sub)command. */
  private static void lowerCaseUsageHeading(CommandLine cl) {
    cl.getCommandSpec().usageMessage().synopsisHeading("usage: ");
    for (CommandLine sub : cl.getSubcommands().values()) {
      lowerCaseUsageHeading(sub);
    }
  }

  private static int wrongCommandLine(ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println(cl.getCommandSpec().root().name() + ": " + message(e));
    cl.usage(err);
    return USAGE;
  }

  /**
   * {@code -h}/{@code --help} for a command that does not inherit its parent's: {@code @Mixin
   * CommandLines.HelpOption help;}.
   */
  public static final class HelpOption {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "Print this help and exit.")
    boolean help;
  }

  /**
   * {@code help [COMMAND]}: the usage of the parent command or of one of its commands, on standard
   * output, exit 0. (picocli's own HelpCommand declares {@code -h}, which clashes with an inherited
   * help option.)
   */
  @Command(name = "help", description = "Print the usage of one command, or of all.")
  public static final class Help implements Runnable {
    @Parameters(arity = "0..1", paramLabel = "COMMAND")
    String command;

    @Spec CommandSpec spec;

    @Override
    public void run() {
      CommandLine parent = spec.parent().commandLine();
      CommandLine target = command == null ? parent : parent.getSubcommands().get(command);
      if (target == null) {
        throw new ParameterException(spec.commandLine(), "unknown command '" + command + "'");
      }
      target.usage(spec.commandLine().getOut());
    }
  }

  /** What was wrong, in one line that names the option, command or argument. */
  static String message(ParameterException e) {
    if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      String first = u.getUnmatched().get(0);
      if (first.startsWith("-")) {
        return "unknown option " + first;
      }
      return e.getCommandLine().getSubcommands().isEmpty()
          ? "unexpected argument '" + first + "'"
          : "unknown command '" + first + "'";
    }
    if (e instanceof CommandLine.MissingParameterException m && !m.getMissing().isEmpty()) {
      List<String> missing = new ArrayList<>();
      for (ArgSpec a : m.getMissing()) {
        missing.add(
            (a instanceof OptionSpec o ? o.longestName() : a.paramLabel()) + " is required");
      }
      return String.join("; ", missing);
    }
    return e.getMessage();
  }
}
