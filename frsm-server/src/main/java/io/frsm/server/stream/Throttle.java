package io.frsm.server.stream;

import java.util.function.LongSupplier;

/**
 * A byte-rate limit shared by every stream of a node in one direction: each transfer reserves its
 * bytes and is told how long to wait before it may go, so transfers leave in reservation order at
 * no more than {@code bytesPerSecond} on average, with bursts of up to one second's worth. Zero
 * means unthrottled. Thread-safe.
 */
final class Throttle {
  /** Idle time earns at most this much credit: one second's worth of bytes. */
  private static final long BURST_NANOS = 1_000_000_000L;

  private final long bytesPerSecond;
  private final LongSupplier nanoTime;

  /** When the bytes reserved so far will have drained at the limit (nanoTime scale). */
  private long drainedAtNanos;

  Throttle(long bytesPerSecond, LongSupplier nanoTime) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond must be >= 0, was " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.nanoTime = nanoTime;
    this.drainedAtNanos = nanoTime.getAsLong() - BURST_NANOS;
  }

  static Throttle unlimited() {
    return new Throttle(0, System::nanoTime);
  }

  /** Reserves {@code bytes}; returns the nanoseconds to wait before sending them (0: now). */
  synchronized long reserve(long bytes) {
    if (bytesPerSecond == 0) {
      return 0;
    }
    long now = nanoTime.getAsLong();
    long start = Math.max(drainedAtNanos, now - BURST_NANOS);
    drainedAtNanos = start + (long) (bytes * 1e9 / bytesPerSecond);
    return Math.max(0, drainedAtNanos - now);
  }

  long bytesPerSecond() {
    return bytesPerSecond;
  }
}
