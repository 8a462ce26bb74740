package io.frsm.server.cli;

import io.frsm.api.FrsmException;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The admin tool's connections: one client-protocol connection per node it asks, over the security
 * the operator chose, all closed together. Not thread-safe (one command's thread).
 */
final class AdminConnections implements AutoCloseable {
  private final TransportEventLoops loops = TransportEventLoops.create(1, false);
  private final TransportConfig config;
  private final ChannelSecurity security;
  private final Duration timeout;
  private final Map<InetSocketAddress, ClientProtocolClient> clients = new LinkedHashMap<>();

  AdminConnections(String clusterId, ChannelSecurity security, Duration timeout) {
    this.config = TransportConfig.builder(clusterId).build();
    this.security = security;
    this.timeout = timeout;
  }

  /**
   * The node's answer.
   *
   * @throws AdminException if no answer came (node down, TLS refused, timeout)
   */
  AdminResponse ask(InetSocketAddress node, AdminRequest request) {
    ClientProtocolClient client =
        clients.computeIfAbsent(
            node, a -> ClientProtocolClient.connect(a, config, loops, security));
    try {
      return client.admin(request, timeout).get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new AdminException(
          "no answer from "
              + HostPort.of(node)
              + ": "
              + (cause instanceof FrsmException ? cause.getMessage() : String.valueOf(cause)));
    } catch (TimeoutException e) {
      throw new AdminException("no answer from " + HostPort.of(node) + " in " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminException("interrupted");
    }
  }

  /**
   * The first of {@code nodes} that answers, with its answer.
   *
   * @throws AdminException if none answers
   */
  Map.Entry<InetSocketAddress, AdminResponse> askAny(
      List<InetSocketAddress> nodes, AdminRequest request) {
    StringBuilder failures = new StringBuilder();
    for (InetSocketAddress node : nodes) {
      try {
        return Map.entry(node, ask(node, request));
      } catch (AdminException e) {
        failures.append(failures.length() == 0 ? "" : "; ").append(e.getMessage());
      }
    }
    throw new AdminException("no node answered: " + failures);
  }

  @Override
  public void close() {
    clients.values().forEach(ClientProtocolClient::close);
    loops.close();
  }

  /** An admin command that could not be carried out; its message is for the operator. */
  static final class AdminException extends RuntimeException {
    AdminException(String message) {
      super(message);
    }
  }
}
