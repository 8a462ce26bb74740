package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code frsm local} as an operator runs it: a child JVM that brings up ZooKeeper and three nodes,
 * prints where they listen within ten lines (libraries' and frsm's INFO logs stay out of the way),
 * serves the {@code frsm cli}, and on Ctrl-C (SIGINT) stops every node and ZooKeeper cleanly and
 * exits.
 */
class LocalCommandProcessIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Pattern ZOOKEEPER =
      Pattern.compile("zookeeper: (\\S+) \\(read-only: --zookeeper-credential (\\S+)\\)");
  private static final Pattern TLS_FILES =
      Pattern.compile("--ca (\\S+) --cert (\\S+) --key (\\S+)");
  private static final String UP = "Ctrl-C stops it.";

  /** How many lines of output {@code frsm local} may take to say it is up and how to use it. */
  private static final int UP_WITHIN_LINES = 10;

  @Test
  void localCluster_servesTheCli_andCtrlCStopsItCleanly(@TempDir Path dir) throws Exception {
    assumeFalse(
        sigintIgnored(),
        "this JVM inherited an ignored SIGINT (a background job of a non-interactive shell, or"
            + " nohup): the child would inherit it and Ctrl-C could not be tested here");
    try (FrsmProcess local =
        FrsmProcess.start(
            dir.resolve("local.out"),
            "local",
            "--nodes",
            "3",
            "--dir",
            dir.resolve("data").toString())) {
      local.awaitOutput(UP, DEADLINE);
      String printed = local.output();
      List<String> untilUp =
          printed.substring(0, printed.indexOf(UP) + UP.length()).lines().toList();
      assertTrue(
          untilUp.size() <= UP_WITHIN_LINES,
          "up after " + untilUp.size() + " lines, not within " + UP_WITHIN_LINES + ":\n" + printed);
      for (int node = 1; node <= 3; node++) {
        assertTrue(printed.contains("  node " + node + ": peer 127.0.0.1:"), printed);
      }
      Matcher zk = ZOOKEEPER.matcher(printed);
      assertTrue(zk.find(), printed);
      String connect = zk.group(1);
      // The printed hint names the client certificate frsm local made (it runs mutual TLS).
      Matcher tls = TLS_FILES.matcher(printed);
      assertTrue(tls.find(), printed);
      // ... and the read-only ZooKeeper identity its znodes grant (they are closed to others).
      List<String> certificate =
          List.of(
              "--ca",
              tls.group(1),
              "--cert",
              tls.group(2),
              "--key",
              tls.group(3),
              "--zookeeper-credential",
              zk.group(2));

      String created = cli(connect, certificate, "create", "greeting", "hello");
      assertTrue(created.startsWith("created at version ("), created);
      String got = cli(connect, certificate, "get", "greeting");
      assertTrue(got.startsWith("hello  @ version ("), got);

      // What Ctrl-C sends to the foreground process.
      Process signal = new ProcessBuilder("kill", "-INT", Long.toString(local.pid())).start();
      assertEquals(0, signal.waitFor(), "kill -INT");
      // A JVM ended by SIGINT exits 128 + 2 once its shutdown hooks have run.
      int exit = local.awaitExit(DEADLINE);
      String all = local.output();
      assertEquals(130, exit, all);
      assertTrue(all.contains("stopping the local cluster ..."), all);
      assertTrue(all.contains("the local cluster stopped"), all);
      assertFalse(all.contains("did not stop cleanly"), all);
      assertFalse(all.contains("Exception"), all);
    }
  }

  /**
   * Whether SIGINT is ignored by this process (Linux: bit 2 of {@code SigIgn} in {@code
   * /proc/self/status}). A child inherits ignored signals, and the JVM leaves an ignored SIGINT
   * ignored, so {@code kill -INT} would do nothing. Elsewhere: false.
   */
  private static boolean sigintIgnored() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return false;
    }
    for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
      if (line.startsWith("SigIgn:")) {
        long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
        return (ignored & (1L << (2 - 1))) != 0; // SIGINT is signal 2
      }
    }
    return false;
  }

  private static String cli(String zookeeper, List<String> certificate, String... operation) {
    List<String> args =
        new ArrayList<>(
            List.of("cli", "--zookeeper", zookeeper, "--cluster", LocalCommand.CLUSTER_ID));
    args.addAll(certificate);
    args.addAll(List.of(operation));
    FrsmRun r = FrsmRun.of(args);
    assertEquals(0, r.exitCode(), r.out() + r.err());
    return r.out();
  }
}
