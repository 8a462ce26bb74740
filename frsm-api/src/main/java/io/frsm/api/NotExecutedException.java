package io.frsm.api;

/**
 * The operation did not take effect and never will: no consensus round for it ever started (for
 * example the bounded delay {@code T} expired while it was queued, or no replica could be reached).
 * It is safe to retry.
 */
public final class NotExecutedException extends FrsmException {
  public NotExecutedException(String message) {
    super(message + "; the operation did not take effect and is safe to retry");
  }

  public NotExecutedException(String message, Throwable cause) {
    super(message + "; the operation did not take effect and is safe to retry", cause);
  }
}
