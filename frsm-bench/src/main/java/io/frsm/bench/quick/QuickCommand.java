package io.frsm.bench.quick;

import io.frsm.server.cli.CommandLines;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code quick [--seconds=10] [--threads=32] [--keys=100000]}: {@link QuickWorkload}. Exit code 1
 * if an operation failed.
 */
@Command(
    name = "quick",
    description = {
      "The storage engine alone: the paper's mix on one LSM engine.",
      "43%% gets, 57%% synced puts, 512-byte values, in a temporary directory; a progress line a"
          + " second, then a summary."
    })
public final class QuickCommand implements Callable<Integer> {
  private static final QuickWorkload.Settings DEFAULTS = QuickWorkload.Settings.paperLike();

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Measured seconds, after loading every key (default: ${DEFAULT-VALUE}).")
  long seconds = DEFAULTS.duration().toSeconds();

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Client threads (default: ${DEFAULT-VALUE}).")
  int threads = DEFAULTS.threads();

  @Option(
      names = "--keys",
      paramLabel = "N",
      description = "Distinct keys, all loaded first (default: ${DEFAULT-VALUE}).")
  int keys = DEFAULTS.keys();

  @Mixin CommandLines.HelpOption help;

  @Spec CommandSpec spec;

  private final PrintStream out;

  public QuickCommand(PrintStream out) {
    this.out = out;
  }

  /** The run the command line asks for; a usage error if it is not one. */
  QuickWorkload.Settings settings() {
    try {
      return new QuickWorkload.Settings(
          Duration.ofSeconds(seconds), threads, keys, DEFAULTS.getFraction());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** {@link #settings()}, for tests in other packages. */
  public QuickWorkload.Settings settingsForTest() {
    return settings();
  }

  @Override
  public Integer call() throws Exception {
    QuickWorkload.Result r = QuickWorkload.run(settings(), out);
    return r.errors() == 0 ? 0 : CommandLines.FAILED;
  }
}
