package io.frsm.client.transport;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open connections of one listening port per remote IP address, so that one machine cannot take
 * all of a port's {@link TransportConfig#maxInboundConnections()} (issue 24: one host opened 20,000
 * idle connections). An address is counted from its connection's arrival to its close, admitted or
 * not: {@link #open} and {@link #close} pair up per connection. An address with no open connection
 * holds no entry, so the map never holds more entries than the port has connections.
 *
 * <p>Per address, not per network: a host with many addresses (an IPv6 /64) is only held by the
 * port's total cap. Thread-safe.
 */
final class ConnectionsPerAddress {
  private final int max;
  private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

  ConnectionsPerAddress(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, was " + max);
    }
    this.max = max;
  }

  /**
   * Counts a new connection from {@code address}; whether it is within the cap (false: the address
   * already holds {@code max} open connections, and this one should be closed). Either way {@link
   * #close} must follow once for it.
   */
  boolean open(InetAddress address) {
    int now = open.merge(address, 1, Integer::sum);
    return now <= max;
  }

  /**
   * The connection from {@code address} that {@link #open} counted is closed.
   *
   * @throws IllegalStateException if {@code address} has no open connection counted: a close
   *     without its open, which would let the address exceed the cap later
   */
  void close(InetAddress address) {
    boolean[] counted = new boolean[1];
    open.computeIfPresent(
        address,
        (a, n) -> {
          counted[0] = true;
          return n == 1 ? null : n - 1;
        });
    if (!counted[0]) {
      throw new IllegalStateException("a connection from " + address + " closed but not counted");
    }
  }

  /** Connections open from {@code address} now (refused ones until they are closed). */
  int openFrom(InetAddress address) {
    return open.getOrDefault(address, 0);
  }

  /** Addresses with at least one open connection. */
  int addresses() {
    return open.size();
  }

  int max() {
    return max;
  }
}
