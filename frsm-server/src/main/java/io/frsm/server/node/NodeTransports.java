package io.frsm.server.node;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.server.client.ClusterMembers;
import io.frsm.transport.ClientProtocolServer;
import io.frsm.transport.NettyPeerTransport;
import io.frsm.transport.PeerTransport;
import io.frsm.transport.TopologyFeed;
import io.frsm.transport.stream.StreamAcceptor;
import java.net.InetSocketAddress;

/**
 * This node's network: the Netty event loops, the peer transport (consensus messages to and from
 * the other nodes) and the client protocol server (clients' and forwarded requests, and clients'
 * topology watches answered from a {@link TopologyFeed}), all on the same loops. The parts stop
 * separately, as the node's stop order interleaves them with others.
 */
final class NodeTransports {
  private final TransportEventLoops loops;
  private final NettyPeerTransport peers;

  /** What the cores send through: {@link #peers}, behind the test's faults if it set any. */
  private final PeerTransport peerSender;

  private final ClientProtocolServer clients;

  private NodeTransports(
      TransportEventLoops loops,
      NettyPeerTransport peers,
      PeerTransport peerSender,
      ClientProtocolServer clients) {
    this.loops = loops;
    this.peers = peers;
    this.peerSender = peerSender;
    this.clients = clients;
  }

  /**
   * Binds the peer and client ports (0: any free port) on {@code loops}, which the transports own
   * from then on: on failure they are closed, with whatever started. {@code faults}: null in
   * production; a test's faults act on every peer message sent and received ({@link
   * FaultyPeerTransport}). {@code streams} takes the peer-port connections that announce a range
   * stream (docs/formats/streaming.md).
   */
  static NodeTransports start(
      int self,
      TransportEventLoops loops,
      TransportConfig config,
      ChannelSecurity security,
      InetSocketAddress peerAddress,
      InetSocketAddress clientAddress,
      ClusterMembers members,
      PeerTransport.InboundHandler onPeerMessage,
      ClientProtocolServer.OperationHandler onClientRequest,
      ClientProtocolServer.AdminHandler onAdminRequest,
      PeerLinkFaults faults,
      TopologyFeed topology,
      StreamAcceptor streams) {
    NettyPeerTransport peers = null;
    try {
      PeerTransport.InboundHandler inbound =
          faults == null ? onPeerMessage : FaultyPeerTransport.inbound(onPeerMessage, faults);
      peers =
          NettyPeerTransport.start(
              self, peerAddress, members::peerAddress, inbound, config, loops, security, streams);
      PeerTransport sender = faults == null ? peers : new FaultyPeerTransport(peers, faults);
      return new NodeTransports(
          loops,
          peers,
          sender,
          ClientProtocolServer.start(
              clientAddress, onClientRequest, onAdminRequest, topology, config, loops, security));
    } catch (RuntimeException e) {
      if (peers != null) {
        peers.close();
      }
      loops.close();
      throw e;
    }
  }

  TransportEventLoops loops() {
    return loops;
  }

  NettyPeerTransport peers() {
    return peers;
  }

  /** Where the cores send peer messages (the peer transport, or the test's faults before it). */
  PeerTransport peerSender() {
    return peerSender;
  }

  ClientProtocolServer clients() {
    return clients;
  }

  /** The bound peer address (the actual port when 0 was asked). */
  InetSocketAddress peerAddress() {
    return peers.localAddress();
  }

  /** The bound client protocol address (the actual port when 0 was asked). */
  InetSocketAddress clientAddress() {
    return clients.localAddress();
  }

  void closeClientServer() {
    clients.close();
  }

  void closePeers() {
    peerSender.close(); // closes the peer transport (behind the faults, if any)
  }

  void closeLoops() {
    loops.close();
  }
}
