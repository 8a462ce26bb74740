package io.frsm.server.stream;

/** A range copy failed: the message says what and where; nothing of it was imported. */
public class StreamException extends RuntimeException {
  public StreamException(String message) {
    super(message);
  }

  public StreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
