package io.frsm.client;

import io.frsm.api.ReadMode;
import java.time.Duration;
import java.util.Objects;

/**
 * What one call runs with ({@code FrsmClient.withReadMode}, {@code withTimeout}): how a get reads,
 * and how long a call waits for a node's answer. Immutable.
 *
 * @param timeoutNanos 0: the client's {@code operationTimeout}
 * @param idempotent every create, CAS and delete carries a fresh random token and is resent with it
 *     while its outcome is unknown ({@code FrsmClient.idempotent()})
 */
record CallOptions(ReadMode readMode, long timeoutNanos, boolean idempotent) {
  static final CallOptions DEFAULTS = new CallOptions(ReadMode.LEADER_WHEN_AVAILABLE, 0);

  CallOptions(ReadMode readMode, long timeoutNanos) {
    this(readMode, timeoutNanos, false);
  }

  CallOptions {
    Objects.requireNonNull(readMode, "readMode");
    if (timeoutNanos < 0) {
      throw new IllegalArgumentException("timeout must be positive");
    }
  }

  CallOptions withReadMode(ReadMode mode) {
    return new CallOptions(Objects.requireNonNull(mode, "mode"), timeoutNanos, idempotent);
  }

  /**
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  CallOptions withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    return new CallOptions(readMode, timeout.toNanos(), idempotent);
  }

  CallOptions asIdempotent() {
    return idempotent ? this : new CallOptions(readMode, timeoutNanos, true);
  }
}
