package io.frsm.testkit.history;

import java.io.IOException;

/** A line of a JSON-lines history is malformed. The message names the line (1-based). */
public final class HistoryFormatException extends IOException {
  private final int lineNumber;

  public HistoryFormatException(int lineNumber, String problem) {
    super("history line " + lineNumber + ": " + problem);
    this.lineNumber = lineNumber;
  }

  public int lineNumber() {
    return lineNumber;
  }
}
