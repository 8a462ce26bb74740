package io.frsm.server.multiprocess;

import io.frsm.client.transport.tls.TlsFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code frsm admin ...} as an operator runs it: a JVM of its own ({@code io.frsm.server.cli.Frsm})
 * with a client certificate of the admin role, given some nodes' client addresses only. Each run's
 * standard output and error are kept in files under {@code logDir} for diagnosis.
 */
final class AdminTool {
  /**
   * What one command printed on standard output and its exit code (0 done, 1 refused or unanswered,
   * 2 bad usage); {@code err} is its standard error (log lines, e.g. a warning about a node that
   * did not answer).
   */
  record Run(List<String> command, int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "frsm admin "
          + String.join(" ", command)
          + " -> exit "
          + exitCode
          + ":\n"
          + out
          + "standard error:\n"
          + err;
    }
  }

  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private final String clusterId;
  private final TlsFiles admin;
  private final Supplier<String> seeds;
  private final Path logDir;
  private final List<Process> all;
  private final AtomicInteger runs = new AtomicInteger();

  /**
   * @param seeds the client addresses ({@code host:port,...}) to give each command, read anew for
   *     each (nodes restart on new ports)
   * @param all every process started, so the caller's shutdown hook can kill them all
   */
  AdminTool(
      String clusterId, TlsFiles admin, Supplier<String> seeds, Path logDir, List<Process> all) {
    this.clusterId = clusterId;
    this.admin = admin;
    this.seeds = seeds;
    this.logDir = logDir;
    this.all = all;
  }

  /** Runs {@code frsm admin <command...>} and waits for it (bounded); from any thread. */
  Run run(String... command) throws IOException, InterruptedException {
    Files.createDirectories(logDir);
    int run = runs.incrementAndGet();
    Path log = logDir.resolve("admin-" + run + ".out");
    Path err = logDir.resolve("admin-" + run + ".err");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> args =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.frsm.server.cli.Frsm",
                "admin"));
    args.addAll(List.of(command));
    args.addAll(
        List.of(
            "--seeds",
            seeds.get(),
            "--cluster",
            clusterId,
            "--ca",
            admin.caBundle().toString(),
            "--cert",
            admin.certificateChain().toString(),
            "--key",
            admin.privateKey().toString()));
    ProcessBuilder pb = new ProcessBuilder(args);
    pb.redirectOutput(log.toFile());
    pb.redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("FRSM_"));
    Process p = pb.start();
    all.add(p);
    if (!p.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
      p.toHandle().destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError(
          "frsm admin " + String.join(" ", command) + " did not end in " + DEADLINE + "; " + log);
    }
    return new Run(
        List.of(command),
        p.exitValue(),
        Files.readString(log, StandardCharsets.ISO_8859_1),
        Files.readString(err, StandardCharsets.ISO_8859_1));
  }

  /** Whether {@code frsm admin status}'s table has a row for {@code node} in {@code state}. */
  static boolean statusRow(String table, int node, String state) {
    return Pattern.compile("(?m)^" + node + "\\s+\\S+\\s+" + Pattern.quote(state) + "(\\s|$)")
        .matcher(table)
        .find();
  }
}
