package io.frsm.transport;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.consensus.core.Message;
import io.frsm.transport.stream.StreamAcceptor;
import java.net.InetSocketAddress;
import java.util.function.IntFunction;

/**
 * frsm's {@link PeerTransport}: the consensus core's messages over a {@link FramedPeerTransport}
 * with frsm's peer protocol ({@code PeerEnvelope}, docs/formats/wire.md). Connections, flushing,
 * back-pressure, reconnects and frame checks are the framed transport's.
 */
public final class NettyPeerTransport implements PeerTransport {
  private final FramedPeerTransport<Message> transport;

  private NettyPeerTransport(FramedPeerTransport<Message> transport) {
    this.transport = transport;
  }

  /**
   * Listens on {@code listenAddress} (port 0 picks one: see {@link #localAddress()}) and returns a
   * running transport.
   *
   * @param selfNodeId this node's id, sent in every frame
   * @param peerAddresses a node's peer address, or null if unknown; asked at every (re)connect
   * @param handler receives every inbound message (see {@link InboundHandler})
   * @param loops shared event loops; the caller closes them after this transport
   */
  public static NettyPeerTransport start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      InboundHandler handler,
      TransportConfig config,
      TransportEventLoops loops) {
    return start(
        selfNodeId,
        listenAddress,
        peerAddresses,
        handler,
        config,
        loops,
        ChannelSecurity.plaintext());
  }

  /**
   * As above, every connection secured by {@code security} (see {@link
   * FramedPeerTransport#start(int, InetSocketAddress, IntFunction, PeerWireCodec,
   * FramedPeerTransport.InboundHandler, TransportConfig, TransportEventLoops, ChannelSecurity)}).
   */
  public static NettyPeerTransport start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      InboundHandler handler,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    return start(selfNodeId, listenAddress, peerAddresses, handler, config, loops, security, null);
  }

  /**
   * As above; connections that announce a stream (docs/formats/streaming.md) go to {@code streams}
   * (null: refused).
   */
  public static NettyPeerTransport start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      InboundHandler handler,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security,
      StreamAcceptor streams) {
    return new NettyPeerTransport(
        FramedPeerTransport.start(
            selfNodeId,
            listenAddress,
            peerAddresses,
            FrsmPeerWireCodec.INSTANCE,
            handler::onMessage,
            config,
            loops,
            security,
            streams));
  }

  public InetSocketAddress localAddress() {
    return transport.localAddress();
  }

  @Override
  public boolean send(int nodeId, Message message) {
    return transport.send(nodeId, message);
  }

  /**
   * Node {@code nodeId} (re)appeared: stop waiting out a back-off to it (see FramedPeerTransport).
   */
  public void redial(int nodeId) {
    transport.redial(nodeId);
  }

  /** Messages {@link #send} refused plus queued messages discarded because a peer was down. */
  public long droppedMessages() {
    return transport.droppedMessages();
  }

  /**
   * Inbound frames refused by their header or a field out of range; each closed its connection
   * (docs/formats/wire.md "Validated ranges").
   */
  public long refusedFrames() {
    return transport.refusedFrames();
  }

  /** What the peer port lets its inbound connections hold, and what it refused. */
  public io.frsm.client.transport.InboundLimits limits() {
    return transport.limits();
  }

  /**
   * Inbound frames whose sender is not the node the connection's certificate names; each closed its
   * connection unread (docs/PROTOCOL.md "Peer identity").
   */
  public long refusedSenders() {
    return transport.refusedSenders();
  }

  /** Keep-alives this node wrote on its peer connections (see {@link FramedPeerTransport}). */
  public long keepalivesSent() {
    return transport.keepalivesSent();
  }

  /** Inbound connections accepted since start (see {@link FramedPeerTransport}). */
  long connectionsAccepted() {
    return transport.connectionsAccepted();
  }

  @Override
  public void close() {
    transport.close();
  }
}
