package io.frsm.api;

/**
 * A mutation's outcome is unknown: a round started but did not finish in time, so the mutation may
 * or may not take effect. Never retry the mutation blindly. Call {@link FrsmClient#fence(byte[])}
 * on the key: once the fence returns, the mutation has either taken effect (the fence's version and
 * value reflect it) or never will. For a create, fence no earlier than the bounded delay {@code T}
 * plus twice the clock-skew bound after the create was issued.
 */
public final class OutcomeUnknownException extends FrsmException {
  public OutcomeUnknownException(String message) {
    super(message + "; the outcome is unknown: resolve it with fence(key) before retrying");
  }

  public OutcomeUnknownException(String message, Throwable cause) {
    super(message + "; the outcome is unknown: resolve it with fence(key) before retrying", cause);
  }
}
