package io.frsm.server.node;

import io.frsm.client.transport.InboundFrameBudget;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.MutualTls;
import java.util.function.LongSupplier;

/**
 * The meters of what a node's edge refused (docs/OPERATIONS.md "Security" and "Configuration file",
 * transport.*): connections its ports' limits closed, peer frames and client operations refused,
 * TLS handshakes, identities and reloads. Registered once the transports are bound.
 */
final class SecurityMeters {
  private SecurityMeters() {}

  /** docs/OPERATIONS.md "Configuration file", transport.*: connections a port's limits closed. */
  private static void inboundLimitMeters(NodeMetrics metrics, String port, InboundLimits limits) {
    String name = "frsm.transport." + port + ".inbound.refused";
    metrics.counter(
        name,
        "connections closed on arrival: the port held transport.maxInboundConnections",
        "reason",
        "connections",
        limits::refusedConnections);
    metrics.counter(
        name,
        "connections closed on arrival: their address held"
            + " transport.maxInboundConnectionsPerAddress",
        "reason",
        "connections_per_address",
        limits::refusedConnectionsPerAddress);
    metrics.counter(
        name,
        "connections closed: a begun frame did not fit transport.partialFrameBudgetBytes",
        "reason",
        "frame_budget",
        limits::refusedFrames);
    metrics.counter(
        name,
        "connections closed: a begun frame fit the port's budget but not what the node's ports"
            + " left of transport.nodeFrameBudgetBytes",
        "reason",
        "node_frame_budget",
        limits::refusedNodeFrames);
    metrics.counter(
        name,
        "connections closed: a begun frame was incomplete after transport.partialFrameTimeout",
        "reason",
        "stalled_frame",
        limits::stalledFrames);
    metrics.counter(
        name,
        "connections closed: nothing received (not even a keep-alive) for transport.idleTimeout",
        "reason",
        "idle",
        limits::idleConnections);
  }

  /**
   * docs/OPERATIONS.md "Configuration file", transport.*: stream connections this node dialed
   * closed because a frame the other node began did not fit a budget or stalled. Connections it
   * accepted (streams included) count under the peer port.
   */
  private static void dialedStreamMeters(NodeMetrics metrics, InboundLimits limits) {
    String name = "frsm.transport.stream.inbound.refused";
    metrics.counter(
        name,
        "dialed stream connections closed: a begun frame did not fit"
            + " transport.partialFrameBudgetBytes (all dialed stream connections together)",
        "reason",
        "frame_budget",
        limits::refusedFrames);
    metrics.counter(
        name,
        "dialed stream connections closed: a begun frame did not fit what the node's ports and"
            + " streams left of transport.nodeFrameBudgetBytes",
        "reason",
        "node_frame_budget",
        limits::refusedNodeFrames);
    metrics.counter(
        name,
        "dialed stream connections closed: a begun frame was incomplete after"
            + " transport.partialFrameTimeout",
        "reason",
        "stalled_frame",
        limits::stalledFrames);
  }

  /** docs/OPERATIONS.md "Security": what the edge refused, by reason. */
  static void register(
      NodeMetrics metrics,
      NodeTransports t,
      InboundLimits dialedStreams,
      ChannelSecurity security,
      LongSupplier unknownSenders) {
    String refused = "frsm.security.refused";
    inboundLimitMeters(metrics, "peer", t.peers().limits());
    inboundLimitMeters(metrics, "client", t.clients().limits());
    if (dialedStreams != null) {
      dialedStreamMeters(metrics, dialedStreams);
    }
    InboundFrameBudget nodeBudget = t.clients().limits().nodeBudget();
    metrics.gauge(
        "frsm.transport.inbound.frame.budget.reserved.bytes",
        "bytes inbound frames begun but not complete hold now, all ports and stream connections"
            + " together (at most transport.nodeFrameBudgetBytes)",
        nodeBudget::reservedBytes);
    metrics.counter(
        refused,
        "peer frames whose sender is not the node their connection's certificate names",
        "reason",
        "sender_not_certificate",
        () -> t.peers().refusedSenders());
    metrics.counter(
        refused,
        "peer messages from a node id not in the cluster's shape",
        "reason",
        "unknown_node",
        unknownSenders);
    metrics.counter(
        refused,
        "client operations whose certificate lacks the role they need",
        "reason",
        "role",
        () -> t.clients().refusedOperations());
    if (security instanceof MutualTls tls) {
      metrics.counter(
          refused,
          "connections whose TLS handshake failed (no, an untrusted or no certificate at all)",
          "reason",
          "handshake",
          tls::handshakeFailures);
      metrics.counter(
          refused,
          "connections whose certificate names no usable identity, another cluster, or the"
              + " wrong kind (a client on the peer port, another node than dialed)",
          "reason",
          "identity",
          tls::identityRefusals);
      metrics.counter(
          "frsm.security.tls.reloads",
          "changes of the TLS files new connections now use",
          "result",
          "loaded",
          () -> tls.contexts().reloads());
      metrics.counter(
          "frsm.security.tls.reloads",
          "changes of the TLS files that could not be used (the previous ones stayed)",
          "result",
          "failed",
          () -> tls.contexts().reloadFailures());
    }
  }
}
