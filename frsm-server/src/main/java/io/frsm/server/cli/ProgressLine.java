package io.frsm.server.cli;

import java.io.PrintStream;

/**
 * A progress line for interactive commands. On a terminal it is one live line, rewritten in place
 * with a carriage return each time it changes; events (a node killed, a node back) are printed
 * above it and the live line is redrawn below them. Anywhere else (a pipe, a log file, CI) each
 * update is a line of its own, so logs keep the whole history and contain no carriage returns.
 *
 * <p>Thread-safe: the workload's ticker and the demo's nemesis print from their own threads.
 */
final class ProgressLine {
  private final PrintStream out;
  private final boolean live;

  /** The live line now on the screen ("" when none). */
  private String shown = "";

  ProgressLine(PrintStream out, boolean live) {
    this.out = out;
    this.live = live;
  }

  /**
   * Live when {@code out} is the process's standard output and that is a terminal: on Java 17
   * {@link System#console()} is null exactly when standard input or output is redirected.
   */
  static ProgressLine forOutput(PrintStream out) {
    return new ProgressLine(out, out == System.out && System.console() != null);
  }

  /** Shows {@code line} as the current progress. */
  synchronized void update(String line) {
    if (!live) {
      out.println(line);
      return;
    }
    // Pad with spaces so a shorter line fully covers the longer one it replaces.
    int pad = Math.max(0, shown.length() - line.length());
    out.print("\r" + line + " ".repeat(pad));
    out.flush();
    shown = line;
  }

  /** Prints {@code line} for good, above the live progress line (which stays current). */
  synchronized void event(String line) {
    if (!live || shown.isEmpty()) {
      out.println(line);
      return;
    }
    int pad = Math.max(0, shown.length() - line.length());
    out.print("\r" + line + " ".repeat(pad) + "\n" + shown);
    out.flush();
  }

  /** Ends the live line (the last progress stays on screen), so what follows starts a new line. */
  synchronized void finish() {
    if (live && !shown.isEmpty()) {
      out.println();
    }
    shown = "";
  }
}
