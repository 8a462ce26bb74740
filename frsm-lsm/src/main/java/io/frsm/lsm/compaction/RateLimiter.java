package io.frsm.lsm.compaction;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * A token bucket in bytes per second that compaction writers share: Table 3 {@code
 * compaction_throughput_limit}. Holds at most one second of burst. Thread-safe; {@link
 * #acquire(long)} parks the caller until the bytes fit.
 */
public final class RateLimiter {
  private final long bytesPerSecond;
  private final LongSupplier nanoTime;
  private double available;
  private long lastRefillNanos;

  public RateLimiter(long bytesPerSecond) {
    this(bytesPerSecond, System::nanoTime);
  }

  RateLimiter(long bytesPerSecond, LongSupplier nanoTime) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("bytesPerSecond must be > 0, was " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.nanoTime = nanoTime;
    this.lastRefillNanos = nanoTime.getAsLong();
    this.available = 0;
  }

  /** Takes {@code bytes}, waiting as long as needed. Larger than one second's worth is allowed. */
  public void acquire(long bytes) {
    long waitNanos = reserve(bytes);
    while (waitNanos > 0) {
      long until = nanoTime.getAsLong() + waitNanos;
      LockSupport.parkNanos(waitNanos);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        return;
      }
      waitNanos = until - nanoTime.getAsLong();
    }
  }

  /**
   * Debits {@code bytes} (the balance may go negative: the debt is paid by waiting) and returns how
   * long the caller must wait before its bytes are covered.
   */
  synchronized long reserve(long bytes) {
    refill();
    available -= bytes;
    return available >= 0 ? 0 : (long) Math.ceil(-available * 1e9 / bytesPerSecond);
  }

  private void refill() {
    long now = nanoTime.getAsLong();
    long elapsed = now - lastRefillNanos;
    if (elapsed > 0) {
      available = Math.min(bytesPerSecond, available + elapsed * (bytesPerSecond / 1e9));
      lastRefillNanos = now;
    }
  }

  public long bytesPerSecond() {
    return bytesPerSecond;
  }
}
