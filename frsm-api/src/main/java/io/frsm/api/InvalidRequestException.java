package io.frsm.api;

/** The request was rejected before anything was done: a null, empty or oversized argument. */
public final class InvalidRequestException extends FrsmException {
  public InvalidRequestException(String message) {
    super(message);
  }
}
