package io.frsm.consensus.transport;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential reconnect back-off with jitter: the n-th consecutive failure waits a random time in
 * {@code [d/2, d]} where {@code d = min(max, min·2ⁿ)}, so peers that lost each other at the same
 * moment do not redial in lockstep. Reset after a successful connect. Not thread-safe: used on one
 * event loop.
 */
final class Backoff {
  private final long minMillis;
  private final long maxMillis;
  private int failures;

  Backoff(long minMillis, long maxMillis) {
    assert 0 < minMillis && minMillis <= maxMillis;
    this.minMillis = minMillis;
    this.maxMillis = maxMillis;
  }

  /** The delay before the next attempt, counting one more failure. */
  long nextDelayMillis() {
    int shift = Math.min(failures, 30);
    failures++;
    long ceiling = Math.min(maxMillis, minMillis << shift);
    if (ceiling < 0) {
      ceiling = maxMillis;
    }
    long floor = Math.max(1, ceiling / 2);
    return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
  }

  void reset() {
    failures = 0;
  }
}
