package io.frsm.client.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes that inbound frames begun but not yet complete may hold, each counted at its declared
 * length while it is incomplete. One per listening port ({@link
 * TransportConfig#partialFrameBudgetBytes()}) and one per {@link TransportEventLoops} ({@link
 * TransportConfig#nodeFrameBudgetBytes()}), which every port of a node shares, so that the direct
 * memory all half-sent frames of a node can hold is bounded by one number (issue 24). Counts only;
 * refusing, counting and logging are {@link InboundLimits}'. Thread-safe.
 */
public final class InboundFrameBudget {
  private final long budgetBytes;
  private final AtomicLong reserved = new AtomicLong();

  public InboundFrameBudget(long budgetBytes) {
    if (budgetBytes < 1) {
      throw new IllegalArgumentException("budgetBytes must be >= 1, was " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
  }

  public long budgetBytes() {
    return budgetBytes;
  }

  /** Bytes held now. */
  public long reservedBytes() {
    return reserved.get();
  }

  /** Bytes not held now (a snapshot, for a log line). */
  long leftBytes() {
    return budgetBytes - reserved.get();
  }

  /** Holds {@code bytes} (at least 1) if they fit, all or nothing. */
  boolean tryReserve(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("bytes must be >= 1, was " + bytes);
    }
    while (true) {
      long now = reserved.get();
      if (bytes > budgetBytes - now) {
        return false;
      }
      if (reserved.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back what {@link #tryReserve} took. */
  void release(long bytes) {
    long after = reserved.addAndGet(-bytes);
    if (after < 0) {
      throw new IllegalStateException("released more frame budget than reserved: " + after);
    }
  }
}
