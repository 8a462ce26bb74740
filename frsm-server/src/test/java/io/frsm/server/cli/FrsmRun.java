package io.frsm.server.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** {@code frsm args} run in this JVM ({@link Frsm#run}): its exit code and what it printed. */
record FrsmRun(int exitCode, String out, String err) {

  static FrsmRun of(String... args) {
    return of(List.of(args));
  }

  static FrsmRun of(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Frsm.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new FrsmRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The first line of standard error: the one that says what was wrong. */
  String problem() {
    return err.lines().findFirst().orElse("");
  }
}
