package io.frsm.server.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code frsm} command: {@code local}, {@code server}, {@code cli}, {@code demo}, {@code certs}
 * (README "Run it", docs/OPERATIONS.md). Exit codes: 0 success, 1 failure, 2 wrong command line, 70
 * a server's node stopped on a fatal error.
 */
@Command(
    name = "frsm",
    description = "A replicated key-value store in which every key is its own state machine.",
    synopsisSubcommandLabel = "COMMAND",
    footerHeading = "%n",
    footer = {
      "Exit codes: 0 success, 1 failure, 2 wrong command line, 70 a server's node stopped on a"
          + " fatal error.",
      "Logs: warnings and errors on standard error (frsm server: frsm's INFO too); --verbose or"
          + " FRSM_LOG_LEVEL=INFO (FINE, ...) for more."
    })
public final class Frsm implements Runnable {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      scope = ScopeType.INHERIT,
      description = "Print this help and exit.")
  boolean help;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "Log at INFO, ZooKeeper, Curator and Netty included (as FRSM_LOG_LEVEL=INFO).")
  boolean verbose;

  @Spec CommandSpec spec;

  private Frsm() {}

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a command is needed");
  }

  public static void main(String[] args) {
    // Before any logger exists (LogManager reads the property once, when first used): a graceful
    // stop's log lines must not be lost to the manager's own shutdown hook.
    if (System.getProperty("java.util.logging.manager") == null) {
      System.setProperty("java.util.logging.manager", StopAwareLogManager.NAME);
    }
    CommandLine cl = commandLine(System.out, System.err);
    cl.setExecutionStrategy(
        parsed -> {
          configureLogging(parsed, cl.getCommand());
          return new CommandLine.RunLast().execute(parsed);
        });
    System.exit(cl.execute(args));
  }

  /** Runs {@code frsm args} in this JVM, leaving its logging as it is; returns the exit code. */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    return commandLine(out, err).execute(args.toArray(String[]::new));
  }

  private static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new Frsm());
    cl.addSubcommand(new LocalCommand(out));
    cl.addSubcommand(new ServerCommand(out));
    cl.addSubcommand(new CliCommand(out));
    cl.addSubcommand(new AdminCommand(out));
    cl.addSubcommand(new DemoCommand(out));
    cl.addSubcommand(new CertsCommand(out));
    cl.addSubcommand(new CommandLines.Help());
    return CommandLines.configure(cl, out, err);
  }

  /**
   * A server logs frsm's INFO lines (what it joined, what it leads); the interactive commands print
   * what their user needs themselves, and log warnings and errors only. The libraries log warnings
   * and errors only ({@link CliLogging#defaults}).
   */
  private static void configureLogging(ParseResult parsed, Frsm root) {
    String command = parsed.hasSubcommand() ? parsed.subcommand().commandSpec().name() : "";
    Map<String, Level> levels;
    if (root.verbose) {
      levels = CliLogging.all(Level.INFO);
    } else {
      levels = CliLogging.defaults(command.equals("server") ? Level.INFO : Level.WARNING);
      if (command.equals("demo")) {
        // The demo kills a node on purpose: its peers' connections to it are refused and its
        // clients' connections reset until it is back, and each says so at WARNING. The demo
        // prints the kill and the take-over itself; failures show in its summary and counter
        // check.
        levels.put("io.frsm.transport", Level.SEVERE);
        levels.put("io.frsm.client.transport", Level.SEVERE);
      }
    }
    try {
      CliLogging.configure(levels, System.getenv());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(parsed.commandSpec().commandLine(), e.getMessage());
    }
  }
}
