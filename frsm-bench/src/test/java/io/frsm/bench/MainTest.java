package io.frsm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.bench.quick.QuickCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code frsm-bench.jar}'s command line: what docs/BENCHMARKS.md quotes parses, {@code jmh} hands
 * JMH its arguments as given, a wrong command line is one line and the usage with exit 2 (no stack
 * trace), and {@code --help} works on every command.
 */
class MainTest {

  private static MainRuns.Run refused(String... args) {
    MainRuns.Run r = MainRuns.run(args);
    assertEquals(2, r.exitCode(), r.out() + r.err());
    assertTrue(r.err().startsWith("frsm-bench.jar: "), r.err());
    assertTrue(r.err().contains("\nusage: frsm-bench.jar"), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    return r;
  }

  private static CommandLine.ParseResult parse(String... args) {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    return Main.commandLine(sink, sink).parseArgs(args);
  }

  @Test
  void jmh_passesEveryArgumentOn_asGiven() {
    List<String> jmhArgs =
        List.of(
            "ReplayBenchmark|GetBenchmark.get",
            "-p",
            "engine=frsm",
            "-f",
            "1",
            "-wi",
            "2",
            "-w",
            "2s",
            "-rf",
            "json",
            "-rff",
            "results.json",
            "-prof",
            "gc",
            "--",
            "@notafile",
            "-h",
            "--seconds=3");
    CommandLine.ParseResult parsed =
        parse(MainRuns.concat(new String[] {"jmh"}, jmhArgs.toArray(String[]::new)));
    JmhCommand jmh = (JmhCommand) parsed.subcommand().commandSpec().userObject();
    assertEquals(jmhArgs, jmh.arguments());
    assertEquals(
        List.of(), ((JmhCommand) parse("jmh").subcommand().commandSpec().userObject()).arguments());
  }

  @Test
  void quick_takesItsOptionsWithOrWithoutEquals_withThePaperLikeDefaults() {
    QuickCommand byDefault = (QuickCommand) parse("quick").subcommand().commandSpec().userObject();
    assertEquals(10, byDefault.settingsForTest().duration().toSeconds());
    assertEquals(32, byDefault.settingsForTest().threads());
    assertEquals(100_000, byDefault.settingsForTest().keys());
    assertEquals(0.43, byDefault.settingsForTest().getFraction());
    for (String[] args :
        List.of(
            new String[] {"quick", "--seconds=3", "--threads=4", "--keys=500"},
            new String[] {"quick", "--seconds", "3", "--threads", "4", "--keys", "500"})) {
      QuickCommand q = (QuickCommand) parse(args).subcommand().commandSpec().userObject();
      assertEquals(3, q.settingsForTest().duration().toSeconds());
      assertEquals(4, q.settingsForTest().threads());
      assertEquals(500, q.settingsForTest().keys());
    }
  }

  @Test
  void wrongCommandLines_sayWhatIsWrong_andExit2() {
    assertTrue(refused().err().startsWith("frsm-bench.jar: a command is needed"));
    assertTrue(refused("bench").err().contains("unknown command 'bench'"));
    assertTrue(refused("quick", "--secs=3").err().contains("unknown option --secs=3"));
    assertTrue(refused("quick", "--seconds=x").err().contains("'--seconds'"));
    assertTrue(refused("quick", "--threads=0").err().contains("threads must be >= 1"));
    assertTrue(refused("quick", "--seconds=0").err().contains("duration must be > 0"));
    assertTrue(refused("experiment").err().contains("NAME is required"));
    assertTrue(refused("experiment", "nope").err().contains("unknown experiment 'nope'"));
    assertTrue(refused("experiment", "reads", "--keys").err().contains("--keys"));
    assertTrue(
        refused("experiment", "reads", "--system-warmup", "-3")
            .err()
            .contains("--system-warmup must be >= 0"));
    assertTrue(refused("experiment", "reads", "--fast").err().contains("unknown option --fast"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "quick", "jmh", "experiment", "experiment point"})
  void help_onEveryCommand_printsItsUsage_andExits0(String command) {
    String[] words = command.isEmpty() ? new String[0] : command.split(" ");
    MainRuns.Run r = MainRuns.run(MainRuns.concat(words, new String[] {"--help"}));
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().startsWith(("usage: frsm-bench.jar " + command).strip()), r.out());
    assertEquals("", r.err());
  }

  @Test
  void help_printsTheUsage_ofAllOrOneCommand() {
    MainRuns.Run all = MainRuns.run("help");
    assertEquals(0, all.exitCode(), all.err());
    assertTrue(all.out().startsWith("usage: frsm-bench.jar"), all.out());
    MainRuns.Run quick = MainRuns.run("help", "quick");
    assertEquals(0, quick.exitCode(), quick.err());
    assertTrue(quick.out().startsWith("usage: frsm-bench.jar quick"), quick.out());
  }
}
