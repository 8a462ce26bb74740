package io.frsm.server.cli;

import java.net.InetSocketAddress;

/** Addresses as operators type them: {@code host:port}. */
final class HostPort {
  private HostPort() {}

  /** {@code host:port}, without the {@code /} that {@link InetSocketAddress#toString} adds. */
  static String of(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }
}
