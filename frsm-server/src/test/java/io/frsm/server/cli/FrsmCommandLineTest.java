package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The frsm command line, refused before anything starts: a wrong one prints one line saying what is
 * wrong, then the usage, and exits 2 (never a stack trace); {@code --help} on every command prints
 * its usage and exits 0.
 */
class FrsmCommandLineTest {

  private static FrsmRun frsm(String... args) {
    return FrsmRun.of(args);
  }

  /** Exit 2, the problem on the first line of standard error, the usage after it, no trace. */
  private static FrsmRun refused(String... args) {
    FrsmRun r = frsm(args);
    assertEquals(2, r.exitCode(), r.out() + r.err());
    assertTrue(r.problem().startsWith("frsm: "), r.err());
    assertTrue(r.err().contains("\nusage: frsm"), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    assertEquals("", r.out());
    return r;
  }

  @Test
  void wrongCommandLines_printUsage_andExit2() {
    assertEquals("frsm: a command is needed", refused().problem());
    assertTrue(refused("frobnicate").err().contains("unknown command 'frobnicate'"));
    assertTrue(refused("demo", "--secs", "3").err().contains("unknown option --secs"));
    assertTrue(refused("local", "--nodes", "2").err().contains("--nodes must be in [3, 32]"));
    assertTrue(refused("cli", "get", "k").err().contains("give --seeds or --zookeeper"));
    assertEquals(0, frsm("help").exitCode());
  }

  @Test
  void badValues_sayWhichOption_andWhatWasWrong() {
    assertTrue(refused("demo", "--seconds", "x").problem().contains("'--seconds'"));
    assertTrue(refused("demo", "--seconds", "2").problem().contains("at least 3"));
    assertTrue(refused("local", "--nodes", "33").problem().contains("[3, 32]"));
    assertTrue(refused("local", "--nodes").problem().contains("--nodes"));
    assertTrue(refused("server").problem().contains("--config is required"));
    assertTrue(refused("local", "extra").problem().contains("unexpected argument 'extra'"));
  }

  @Test
  void adminCommands_checkTheirArguments_beforeConnecting() {
    String seeds = "127.0.0.1:1"; // would refuse a connection: none is tried
    assertTrue(refused("admin").problem().contains("admin needs a command"));
    assertTrue(
        refused("admin", "status", "--insecure").problem().contains("give --seeds or --zookeeper"));
    assertTrue(
        refused("admin", "status", "--seeds", seeds)
            .problem()
            .contains("--ca, --cert and --key are needed"));
    assertTrue(
        refused("admin", "compact", "--seeds", seeds, "--insecure")
            .problem()
            .contains("give --node ID or --all"));
    assertTrue(
        refused("admin", "compact", "--all", "--node", "1", "--seeds", seeds, "--insecure")
            .problem()
            .contains("give --node ID or --all"));
    assertTrue(
        refused("admin", "add-node", "-3", "--seeds", seeds, "--insecure")
            .problem()
            .contains("a node id is >= 0"));
    assertTrue(
        refused("admin", "replace", "3", "--seeds", seeds, "--insecure")
            .problem()
            .contains("--with"));
    assertTrue(
        refused("admin", "status", "--seeds", "nohost", "--insecure")
            .problem()
            .contains("is not host:port"));
    assertTrue(
        refused("local", "--joining", "5").problem().contains("--joining must be in [0, 4]"));
  }

  @Test
  void cliOperations_checkTheirArguments_beforeConnecting() {
    // 127.0.0.1:1 would refuse a connection: each of these is refused before any is tried.
    String zk = "127.0.0.1:1";
    assertEquals("frsm: cli needs an operation", refused("cli", "--zookeeper", zk).problem());
    assertTrue(
        refused("cli", "--zookeeper", zk, "frob").problem().contains("unknown command 'frob'"));
    assertTrue(refused("cli", "--zookeeper", zk, "get").problem().contains("KEY is required"));
    assertTrue(refused("cli", "--zookeeper", zk, "create", "k").problem().contains("VALUE"));
    FrsmRun badVersion = refused("cli", "--zookeeper", zk, "delete", "k", "x", "1");
    assertTrue(badVersion.problem().contains("EPOCH TIMESTAMP"), badVersion.err());
    assertTrue(badVersion.err().contains("usage: frsm cli delete"), badVersion.err());
    assertTrue(
        refused("cli", "--zookeeper", zk, "cas", "k", "1", "-1", "v")
            .problem()
            .contains("non-negative"));
    assertTrue(refused("cli", "--zookeeper", zk, "get", "a", "b").problem().contains("'b'"));
  }

  @Test
  void cliOptions_mayComeBeforeOrAfterTheOperation() {
    // Refused for the version, so parsed in both orders: no connection is tried.
    for (String[] args :
        List.of(
            new String[] {"cli", "--zookeeper", "127.0.0.1:1", "--cluster", "c", "delete", "k"},
            new String[] {"cli", "delete", "k", "--zookeeper", "127.0.0.1:1", "--cluster", "c"})) {
      assertTrue(frsm(args).problem().contains("EPOCH is required"), String.join(" ", args));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "local",
        "server",
        "cli",
        "demo",
        "help",
        "cli get",
        "cli create",
        "cli cas",
        "cli delete",
        "cli fence",
        "cli ring",
        "cli leader"
      })
  void help_onEveryCommand_printsItsUsage_andExits0(String command) {
    String[] words = command.isEmpty() ? new String[0] : command.split(" ");
    for (String help : List.of("--help", "-h")) {
      String[] args = java.util.Arrays.copyOf(words, words.length + 1);
      args[words.length] = help;
      FrsmRun r = frsm(args);
      assertEquals(0, r.exitCode(), r.err());
      assertTrue(r.out().startsWith(("usage: frsm " + command).strip()), r.out());
      assertEquals("", r.err());
    }
    FrsmRun viaHelp = frsm(("help " + (words.length == 1 ? command : "")).strip().split(" "));
    assertEquals(0, viaHelp.exitCode(), viaHelp.err());
  }

  @Test
  void logging_librariesWarnOnly_frsmAsTheCommandSays_andTheEnvironmentOverrides() {
    Map<String, Level> server = CliLogging.defaults(Level.INFO);
    assertEquals(Level.WARNING, server.get(""));
    assertEquals(Level.INFO, server.get("io.frsm"));
    assertEquals(Level.WARNING, CliLogging.defaults(Level.WARNING).get("io.frsm"));
    // Curator and ZooKeeper's clients log under the root's WARNING: their errors always show.
    assertTrue(
        server.keySet().stream().noneMatch(n -> n.startsWith("org.apache.curator")), "" + server);
    IllegalArgumentException badLevel =
        assertThrows(
            IllegalArgumentException.class,
            () -> CliLogging.configure(server, Map.of(CliLogging.LEVEL_VARIABLE, "LOUD")));
    assertTrue(badLevel.getMessage().contains("'LOUD'"), badLevel.getMessage());
  }

  @Test
  void server_readsTheLogLevelVariable_itself_notAsAConfigKey() {
    Map<String, String> env =
        Map.of(CliLogging.LEVEL_VARIABLE, "INFO", "FRSM_NODE_ID", "4", "HOME", "/root");
    assertEquals(
        Map.of("FRSM_NODE_ID", "4", "HOME", "/root"), ServerCommand.configEnvironment(env));
  }
}
