package io.frsm.client.transport;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Exponential reconnect back-off with jitter: the n-th consecutive failure (n from 0) waits a
 * random time in {@code [d/2, d]} where {@code d = min(max, min·2ⁿ)}, so peers that lost each other
 * at the same moment do not redial in lockstep. Reset after a successful connect. Not thread-safe:
 * used on one event loop.
 */
public final class Backoff {
  private final long minMillis;
  private final long maxMillis;
  private final Supplier<RandomGenerator> random;
  private int failures;

  /** Jitter from the calling thread's {@link ThreadLocalRandom}. */
  public Backoff(long minMillis, long maxMillis) {
    // A supplier, not a cached instance: ThreadLocalRandom must be fetched on the thread using it.
    this(minMillis, maxMillis, ThreadLocalRandom::current);
  }

  /** REQUIRES: {@code 0 < minMillis <= maxMillis}. Tests inject a seeded or fixed source. */
  public Backoff(long minMillis, long maxMillis, Supplier<RandomGenerator> random) {
    if (minMillis < 1 || minMillis > maxMillis) {
      throw new IllegalArgumentException(
          "back-off needs 0 < min <= max, was min " + minMillis + " ms, max " + maxMillis + " ms");
    }
    this.minMillis = minMillis;
    this.maxMillis = maxMillis;
    this.random = random;
  }

  /** The delay before the next attempt, counting one more failure. */
  public long nextDelayMillis() {
    long ceiling = ceilingMillis(failures);
    if (failures < Integer.MAX_VALUE) {
      failures++;
    }
    long floor = Math.max(1, ceiling / 2);
    return floor + random.get().nextLong(ceiling - floor + 1);
  }

  /**
   * {@code min(max, min·2ⁿ)} without overflow: a plain {@code min << n} wraps for large minimums
   * (bits shifted out of the top) and can come out below {@code min}, or at zero.
   */
  private long ceilingMillis(int n) {
    if (n >= Long.SIZE - 1 || minMillis > (maxMillis >> n)) {
      return maxMillis;
    }
    return minMillis << n;
  }

  /** Consecutive failures counted since the last {@link #reset}. */
  public int failures() {
    return failures;
  }

  public void reset() {
    failures = 0;
  }
}
