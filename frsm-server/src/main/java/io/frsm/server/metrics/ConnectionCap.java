package io.frsm.server.metrics;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code max} of the endpoint's connections open at once. A connection beyond the cap is
 * closed as soon as it is accepted, before anything is read from it: a flood of connections costs
 * one accept and one close each, and the connections within the cap keep being answered. With
 * {@link RequestHeadDeadline} it bounds how long any client can keep the cap filled with idle
 * connections.
 *
 * <p>Thread-safe.
 */
final class ConnectionCap {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionCap(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, was " + max);
    }
    this.max = max;
  }

  /**
   * Counts {@code connection} as open until it closes; returns false, counting nothing, when the
   * cap is already reached.
   */
  boolean admit(Channel connection) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      return false;
    }
    connection.closeFuture().addListener(closed -> open.decrementAndGet());
    return true;
  }

  /** The connections open now. */
  int open() {
    return open.get();
  }
}
