package io.frsm.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jmh [JMH arguments]}: JMH's own command line ({@code org.openjdk.jmh.Main}), every
 * argument passed on as given: JMH's options are not declared here, so none is parsed, split or
 * expanded on the way. Only {@code --help} is this command's (JMH's help is {@code -h}).
 */
@Command(
    name = "jmh",
    description = {
      "JMH, its arguments passed on as given.",
      "E.g. -f 1 -wi 2 -i 3 -w 2s -r 3s -rf json; a regex selects benchmarks"
          + " ('io.frsm.bench.lsm'); jmh -h lists JMH's own options."
    })
final class JmhCommand implements Callable<Integer> {
  @Option(names = "--help", usageHelp = true, description = "Print this help and exit.")
  boolean help;

  @Parameters(paramLabel = "JMH-ARGUMENT", description = "Passed to JMH as given.")
  List<String> arguments = new ArrayList<>();

  private JmhCommand() {}

  /**
   * The command, parsing nothing: an argument that looks like an option ({@code -f}) is JMH's, an
   * {@code @file} is not expanded, and {@code --} is passed on (the end-of-options delimiter is one
   * no command line can hold: NUL).
   */
  static CommandLine commandLine() {
    return new CommandLine(new JmhCommand())
        .setUnmatchedOptionsArePositionalParams(true)
        .setExpandAtFiles(false)
        .setEndOfOptionsDelimiter("\0");
  }

  /** The arguments JMH gets. */
  List<String> arguments() {
    return arguments;
  }

  @Override
  public Integer call() throws Exception {
    // Returns when the run ends; exits the JVM itself (1) on a bad JMH option or a failed run.
    org.openjdk.jmh.Main.main(arguments.toArray(String[]::new));
    return 0;
  }
}
