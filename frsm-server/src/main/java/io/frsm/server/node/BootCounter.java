package io.frsm.server.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The node's start counter, the {@code boot} part of every ballot it issues (docs/DESIGN.md "The
 * per-key state"). Each start reads it, adds one and makes the new value durable before the node
 * serves, so no ballot of a crashed incarnation is ever issued again.
 *
 * <p>File {@code <data>/BOOT}: the decimal value and a newline. Written to a temporary file,
 * forced, renamed over the old one atomically, then the directory is forced: a crash leaves the old
 * or the new value, never a torn one. A file that does not parse is an error (never silently reset:
 * that would reuse ballots).
 */
final class BootCounter {
  static final String FILE_NAME = "BOOT";
  private static final String TEMP_NAME = "BOOT.tmp";

  private BootCounter() {}

  /**
   * Increments the counter in {@code dataDirectory} durably and returns the new value (first: 1).
   */
  static int next(Path dataDirectory) throws IOException {
    Files.createDirectories(dataDirectory);
    Path file = dataDirectory.resolve(FILE_NAME);
    int previous = 0;
    if (Files.exists(file)) {
      String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
      try {
        previous = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        throw new IOException(
            file + " is damaged (\"" + text + "\"): restore it from a value at least as high", e);
      }
      if (previous < 0) {
        throw new IOException(file + " holds a negative boot count " + previous);
      }
    }
    if (previous == Integer.MAX_VALUE) {
      throw new IOException(file + ": boot counter exhausted");
    }
    int next = previous + 1;
    DurableFiles.replace(
        file, dataDirectory.resolve(TEMP_NAME), (next + "\n").getBytes(StandardCharsets.US_ASCII));
    return next;
  }
}
