package io.frsm.client;

import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client-protocol connection per node address, dialled on first use and kept (reconnecting)
 * while the node is a member. Used by the seed client and by a node forwarding its embedded
 * clients' operations. Thread-safe.
 */
public final class ClientConnections implements AutoCloseable {
  private final TransportConfig config;
  private final TransportEventLoops loops;
  private final ChannelSecurity security;
  private final Map<InetSocketAddress, ClientProtocolClient> byAddress = new ConcurrentHashMap<>();

  /** {@code security}: how every connection is secured (the node's own, or the client's). */
  public ClientConnections(
      TransportConfig config, TransportEventLoops loops, ChannelSecurity security) {
    this.config = config;
    this.loops = loops;
    this.security = security;
  }

  /**
   * The connection to {@code address}, dialled now if there is none.
   *
   * @throws RuntimeException if no connection can be created (for example the loops are closed)
   */
  public ClientProtocolClient to(InetSocketAddress address) {
    return byAddress.computeIfAbsent(
        address, a -> ClientProtocolClient.connect(a, config, loops, security));
  }

  /**
   * A member that left (or came back on another port) is not worth reconnecting to: every
   * connection to an address not in {@code live} is closed, failing its calls in flight as the
   * transport rules say.
   */
  public void retainOnly(Set<InetSocketAddress> live) {
    byAddress
        .entrySet()
        .removeIf(
            e -> {
              if (live.contains(e.getKey())) {
                return false;
              }
              e.getValue().close();
              return true;
            });
  }

  /**
   * Pauses on the connections' event loops, for {@link RedirectFollower}. Once the loops are shut
   * down the hop runs at once: it then finds no connection and ends as unreachable.
   */
  public RedirectFollower.Pause pause() {
    return (nanos, then) -> {
      try {
        loops.group().next().schedule(then, nanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        then.run();
      }
    };
  }

  /** Closes every connection (their calls in flight fail) and forgets them. */
  @Override
  public void close() {
    byAddress.values().forEach(ClientProtocolClient::close);
    byAddress.clear();
  }
}
