package io.frsm.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The seed addresses a user gave ({@code io.frsm.api.spi.ClientSettings#seeds}, each {@code
 * host:port} or {@code [ipv6]:port}, checked by the builder) as socket addresses. A host name is
 * resolved here, once, on the thread that builds the client; one that does not resolve stays
 * unresolved, and dialling it fails like dialling a node that is down (the next seed is tried).
 */
final class Seeds {
  private Seeds() {}

  static List<InetSocketAddress> resolve(List<String> seeds) {
    List<InetSocketAddress> out = new ArrayList<>(seeds.size());
    for (String seed : seeds) {
      int colon = seed.lastIndexOf(':');
      if (colon < 1 || colon == seed.length() - 1) {
        throw new IllegalArgumentException("seed '" + seed + "' is not host:port");
      }
      String host = seed.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(seed.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("seed '" + seed + "' has no numeric port", e);
      }
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("seed '" + seed + "' port is not 1-65535");
      }
      out.add(new InetSocketAddress(host, port));
    }
    return out;
  }
}
