package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code frsm local} as an operator runs it: a child JVM that brings up ZooKeeper and three nodes,
 * prints where they listen, serves the {@code frsm cli}, and on Ctrl-C (SIGINT) stops every node
 * and ZooKeeper cleanly and exits.
 */
class LocalCommandProcessIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Pattern ZOOKEEPER = Pattern.compile("zookeeper: (\\S+)");

  private Process process;

  @AfterEach
  void killLeftovers() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
  }

  @Test
  void localCluster_servesTheCli_andCtrlCStopsItCleanly(@TempDir Path dir) throws Exception {
    assumeFalse(
        sigintIgnored(),
        "this JVM inherited an ignored SIGINT (a background job of a non-interactive shell, or"
            + " nohup): the child would inherit it and Ctrl-C could not be tested here");
    Path output = dir.resolve("local.out");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-ea",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.frsm.server.cli.Frsm",
                "local",
                "--nodes",
                "3",
                "--dir",
                dir.resolve("data").toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("FRSM_"));
    process = pb.start();

    awaitCondition(() -> read(output).contains("Ctrl-C stops it."), "the cluster is up", output);
    String printed = read(output);
    for (int node = 1; node <= 3; node++) {
      assertTrue(printed.contains("  node " + node + ": peer 127.0.0.1:"), printed);
    }
    Matcher zk = ZOOKEEPER.matcher(printed);
    assertTrue(zk.find(), printed);
    String connect = zk.group(1);

    String created = cli(connect, "create", "greeting", "hello");
    assertTrue(created.startsWith("created at version ("), created);
    String got = cli(connect, "get", "greeting");
    assertTrue(got.startsWith("hello  @ version ("), got);

    // What Ctrl-C sends to the foreground process.
    Process signal = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start();
    assertEquals(0, signal.waitFor(), "kill -INT");
    assertTrue(
        process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS),
        "frsm local did not exit after SIGINT:\n" + read(output));
    String all = read(output);
    // A JVM ended by SIGINT exits 128 + 2 once its shutdown hooks have run.
    assertEquals(130, process.exitValue(), all);
    assertTrue(all.contains("stopping the local cluster ..."), all);
    assertTrue(all.contains("the local cluster stopped"), all);
    assertFalse(all.contains("did not stop cleanly"), all);
    assertFalse(all.contains("Exception"), all);
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

  private static String cli(String zookeeper, String... operation) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args =
        new ArrayList<>(
            List.of("cli", "--zookeeper", zookeeper, "--cluster", LocalCluster.CLUSTER_ID));
    args.addAll(List.of(operation));
    int code =
        Frsm.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, text + err.toString(StandardCharsets.UTF_8));
    return text;
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private void awaitCondition(BooleanSupplier condition, String what, Path output) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (!process.isAlive()) {
        throw new AssertionError("frsm local exited before " + what + ":\n" + read(output));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("no " + what + " within " + DEADLINE + ":\n" + read(output));
      }
      // Polls the child's output file: the child signals nothing else we could wait on.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
