package io.frsm.server.node;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.server.client.ClusterMembers;
import io.frsm.transport.ClientProtocolServer;
import io.frsm.transport.NettyPeerTransport;
import io.frsm.transport.PeerTransport;
import io.frsm.transport.TopologyFeed;
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
  private final ClientProtocolServer clients;

  private NodeTransports(
      TransportEventLoops loops, NettyPeerTransport peers, ClientProtocolServer clients) {
    this.loops = loops;
    this.peers = peers;
    this.clients = clients;
  }

  /**
   * Binds the peer and client ports (0: any free port) on {@code loops}, which the transports own
   * from then on: on failure they are closed, with whatever started.
   */
  static NodeTransports start(
      int self,
      TransportEventLoops loops,
      TransportConfig config,
      InetSocketAddress peerAddress,
      InetSocketAddress clientAddress,
      ClusterMembers members,
      PeerTransport.InboundHandler onPeerMessage,
      ClientProtocolServer.OperationHandler onClientRequest,
      TopologyFeed topology) {
    NettyPeerTransport peers = null;
    try {
      peers =
          NettyPeerTransport.start(
              self, peerAddress, members::peerAddress, onPeerMessage, config, loops);
      return new NodeTransports(
          loops,
          peers,
          ClientProtocolServer.start(clientAddress, onClientRequest, topology, config, loops));
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
    peers.close();
  }

  void closeLoops() {
    loops.close();
  }
}
