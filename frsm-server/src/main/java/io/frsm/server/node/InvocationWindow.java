package io.frsm.server.node;

import java.time.Duration;

/**
 * Which invocation times τ a node admits, by its own wall clock (docs/formats/wire.md "Validated
 * ranges"): 0 (not given: the node stamps its clock), or within {@code [now − MAX_AGE, now + T +
 * ε]}.
 *
 * <p>The future bound: an honest caller's clock is at most ε ahead of the node's, and τ further
 * ahead would stretch the bounded delay {@code τ + T} past what the create-settle wait ({@code T +
 * 2ε}) and the leases assume. The past bound only refuses garbage: an honest but late request
 * (queued, forwarded, paused) must reach the core, which answers it "not executed" once {@code τ +
 * T} has passed, so it lies far above any {@code T + ε} (each at most an hour).
 *
 * @param futureMicros {@code T + ε} in µs
 */
record InvocationWindow(long futureMicros) {
  /** How old a τ may be. */
  static final Duration MAX_AGE = Duration.ofHours(6);

  private static final long MAX_AGE_MICROS = MAX_AGE.toNanos() / 1_000;

  InvocationWindow {
    if (futureMicros < 0) {
      throw new IllegalArgumentException("futureMicros must be >= 0, was " + futureMicros);
    }
  }

  /** The window of a cluster whose bounded delay is {@code t} and clock-skew bound {@code ε}. */
  static InvocationWindow of(Duration boundedDelay, Duration clockSkewBound) {
    return new InvocationWindow(boundedDelay.plus(clockSkewBound).toNanos() / 1_000);
  }

  /** Null if τ = {@code tau} is admitted at wall-clock time {@code nowMicros}, else why not. */
  String refusal(long tau, long nowMicros) {
    if (tau == 0) {
      return null;
    }
    // nowMicros is a real clock (about 2^51): these differences cannot overflow for tau >= 0.
    if (tau < 0 || tau - nowMicros > futureMicros) {
      return "invoked_at_micros "
          + Long.toUnsignedString(tau)
          + " is more than T + ε ("
          + futureMicros
          + " µs) ahead of this node's clock ("
          + nowMicros
          + ")";
    }
    if (nowMicros - tau > MAX_AGE_MICROS) {
      return "invoked_at_micros "
          + tau
          + " is more than "
          + MAX_AGE.toHours()
          + " hours behind this node's clock ("
          + nowMicros
          + ")";
    }
    return null;
  }
}
