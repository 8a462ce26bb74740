package io.frsm.server.metrics;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code max} of the endpoint's connections open at once. A connection beyond the cap is
 * closed as soon as it is accepted, before anything is read from it: a flood of connections costs
 * one accept and one close each, and the connections within the cap keep being answered. With
 * {@link RequestHeadDeadline} it bounds how long any client can keep the cap filled with idle
 * connections. It also holds the open connections, so that the server can close them all while its
 * event loop still runs ({@link #closeAll}).
 *
 * <p>Thread-safe.
 */
final class ConnectionCap {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final Set<Channel> connections = ConcurrentHashMap.newKeySet();

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
    connections.add(connection);
    connection
        .closeFuture()
        .addListener(
            closed -> {
              connections.remove(connection);
              open.decrementAndGet();
            });
    return true;
  }

  /**
   * Closes every open connection and waits until each is closed. Called before the event loop shuts
   * down: a connection closed by the loop's own shutdown may not run its handlers' cleanup, and the
   * decoder's buffer of a half-received request head would leak.
   */
  void closeAll() {
    List<Channel> closing = new ArrayList<>(connections);
    for (Channel c : closing) {
      c.close();
    }
    for (Channel c : closing) {
      c.closeFuture().awaitUninterruptibly();
    }
  }

  /** The connections open now. */
  int open() {
    return open.get();
  }
}
