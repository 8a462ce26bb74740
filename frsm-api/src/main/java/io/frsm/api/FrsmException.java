package io.frsm.api;

/** The root of every failure frsm reports. Unchecked: the subclass says what happened. */
public class FrsmException extends RuntimeException {
  public FrsmException(String message) {
    super(message);
  }

  public FrsmException(String message, Throwable cause) {
    super(message, cause);
  }
}
