package io.frsm.consensus.core;

/**
 * A membership step that breaks a rule of {@link RingTransition}: publishing it could let two
 * quorums that do not intersect choose different values. The message names the rule and the range.
 */
public final class UnsafeRingTransitionException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UnsafeRingTransitionException(String message) {
    super(message);
  }
}
