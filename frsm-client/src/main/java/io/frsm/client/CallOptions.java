package io.frsm.client;

import io.frsm.api.ReadMode;
import java.time.Duration;
import java.util.Objects;

/**
 * What one call runs with ({@code FrsmClient.withReadMode}, {@code withTimeout}): how a get reads,
 * and how long a call waits for a node's answer. Immutable.
 *
 * @param timeoutNanos 0: the client's {@code operationTimeout}
 */
record CallOptions(ReadMode readMode, long timeoutNanos) {
  static final CallOptions DEFAULTS = new CallOptions(ReadMode.LEADER_WHEN_AVAILABLE, 0);

  CallOptions {
    Objects.requireNonNull(readMode, "readMode");
    if (timeoutNanos < 0) {
      throw new IllegalArgumentException("timeout must be positive");
    }
  }

  CallOptions withReadMode(ReadMode mode) {
    return new CallOptions(Objects.requireNonNull(mode, "mode"), timeoutNanos);
  }

  /**
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  CallOptions withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    return new CallOptions(readMode, timeout.toNanos());
  }
}
