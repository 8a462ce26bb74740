package io.frsm.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The frsm command in a child JVM, as {@code bin/frsm} runs it ({@link Frsm#main}: its logging
 * configured as for a user), standard output and error together in one file. No FRSM_* environment
 * variable reaches it. {@link #close} kills it if it still runs.
 */
final class FrsmProcess implements AutoCloseable {
  private final Process process;
  private final Path output;

  private FrsmProcess(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  static FrsmProcess start(Path output, String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-ea",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                // Netty loads its native transport; on JDK 22+ a class-path launch warns of it
                // unless allowed (the tests check the output is quiet). JDK 17 accepts the flag.
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Frsm.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("FRSM_"));
    return new FrsmProcess(pb.start(), output);
  }

  long pid() {
    return process.pid();
  }

  /** What it printed so far. */
  String output() {
    try {
      return Files.exists(output) ? Files.readString(output, StandardCharsets.ISO_8859_1) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits until its output contains {@code text}; fails if it exits first or {@code deadline}
   * passes.
   */
  void awaitOutput(String text, Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!output().contains(text)) {
      if (!process.isAlive()) {
        throw new AssertionError("frsm exited before printing '" + text + "':\n" + output());
      }
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("no '" + text + "' within " + deadline + ":\n" + output());
      }
      // Polls the child's output file: the child signals nothing else we could wait on.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  /** Waits for it to exit; its exit code. Fails if it still runs after {@code deadline}. */
  int awaitExit(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new AssertionError("frsm still running after " + deadline + ":\n" + output());
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(60, TimeUnit.SECONDS);
    }
  }
}
