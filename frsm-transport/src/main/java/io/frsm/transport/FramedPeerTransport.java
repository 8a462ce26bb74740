package io.frsm.transport;

import com.google.protobuf.MessageLite;
import io.frsm.client.transport.CoalescingWriter;
import io.frsm.client.transport.ConnectionPreamble;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.OutboundConnection;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.IdentityRule;
import io.frsm.transport.stream.StreamAcceptor;
import io.frsm.transport.stream.StreamWire;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * A Netty peer transport for any message type with a {@link PeerWireCodec}: a listening socket for
 * inbound peer connections and one dialed connection per destination node. frsm's Paxos messages
 * travel over one ({@link NettyPeerTransport}); the benchmark's coarse-grained baseline over
 * another, so both pay the same framing, syscalls and flush policy.
 *
 * <p>Each connection carries one direction: a node sends on the connection it dialed and receives
 * on those it accepted, so two nodes talk over two TCP connections. That keeps reconnecting a
 * sender-side concern (no race between two nodes dialing each other at once) and gives
 * per-connection FIFO order for each (sender, receiver) pair. Frames are checked one by one
 * (protocol version, cluster id, sender) in {@link PeerFraming}; a bad frame closes its connection
 * (logged with the peer's address) and changes nothing.
 *
 * <p>{@link #send} encodes on the caller's thread and queues the envelope on the destination's
 * {@link CoalescingWriter}: one flush per event-loop turn, bounded backlog, fail fast beyond it. A
 * lost connection is redialed with exponential back-off ({@link OutboundConnection}).
 *
 * <p>Delivery is best effort (see {@link PeerTransport}). Thread-safe.
 *
 * @param <M> the protocol's message type
 */
public final class FramedPeerTransport<M> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FramedPeerTransport.class.getName());
  private static final String FRAMES = "frsm-peer-frames";
  private static final String INBOUND = "frsm-peer-inbound";
  private static final String IDLE = "frsm-peer-idle";

  private final int selfNodeId;
  private final IntFunction<InetSocketAddress> peerAddresses;
  private final TransportConfig config;
  private final TransportEventLoops loops;
  private final PeerFraming<M> framing;
  private final PeerWireCodec.Encoder<M> encoder;
  private final ChannelSecurity security;
  private final Channel serverChannel;
  private final ChannelGroup acceptedChannels;
  private final Map<Integer, OutboundConnection> connections = new ConcurrentHashMap<>();
  private final LongAdder droppedMessages = new LongAdder();
  private final LongAdder connectionsAccepted = new LongAdder();
  private final LongAdder refusedFrames = new LongAdder();
  private final LongAdder refusedSenders = new LongAdder();
  private final InboundLimits limits;

  /** This node's keep-alive frame (the same bytes every time), or null: the protocol has none. */
  private final MessageLite keepalive;

  private volatile boolean closed;

  private FramedPeerTransport(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      PeerWireCodec<M> codec,
      InboundHandler<M> handler,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security,
      StreamAcceptor streams) {
    this.selfNodeId = selfNodeId;
    this.security = security;
    this.peerAddresses = peerAddresses;
    this.config = config;
    this.loops = loops;
    this.framing = new PeerFraming<>(config.clusterId(), codec);
    this.encoder = framing.encoder(selfNodeId);
    this.keepalive = framing.encodeKeepalive(selfNodeId);
    this.limits =
        new InboundLimits(
            codec.protocolName() + " peer port", config, loops.nodeFrameBudget(config));
    this.acceptedChannels =
        new DefaultChannelGroup(codec.protocolName() + " in", GlobalEventExecutor.INSTANCE);
    ServerBootstrap server =
        ServerSockets.bootstrap(loops)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    acceptedChannels.add(ch);
                    connectionsAccepted.increment();
                    security.accepted(ch, IdentityRule.anyNode());
                    if (streams != null) {
                      ch.pipeline()
                          .addLast(
                              ConnectionPreamble.Sniffer.NAME,
                              new ConnectionPreamble.Sniffer(
                                  StreamWire.preamble(),
                                  // the stream stays under this port's limits
                                  stream -> streams.accept(stream, limits),
                                  // streams keep idle times of their own (StreamSource)
                                  List.of(IDLE, FRAMES, INBOUND)));
                    }
                    ch.pipeline()
                        .addFirst(limits.connectionGate())
                        .addLast(IDLE, limits.idleCloser())
                        .addLast(
                            FRAMES,
                            new FrameDecoder(
                                config.maxFrameBytes(), framing, refusedFrames::increment, limits))
                        .addLast(
                            INBOUND,
                            new PeerInboundHandler<>(handler, security, refusedSenders::increment));
                  }
                });
    this.serverChannel =
        ServerSockets.bind(server, listenAddress, codec.protocolName() + " transport");
  }

  /**
   * Listens on {@code listenAddress} (port 0 picks one: see {@link #localAddress()}) and returns a
   * running transport.
   *
   * @param selfNodeId this node's id, sent in every frame
   * @param peerAddresses a node's peer address, or null if unknown; asked at every (re)connect
   * @param codec the protocol's envelopes
   * @param handler receives every inbound message (see {@link InboundHandler})
   * @param config cluster id, frame limit, queue bound, back-off
   * @param loops shared event loops; the caller closes them after this transport
   */
  public static <M> FramedPeerTransport<M> start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      PeerWireCodec<M> codec,
      InboundHandler<M> handler,
      TransportConfig config,
      TransportEventLoops loops) {
    return start(
        selfNodeId,
        listenAddress,
        peerAddresses,
        codec,
        handler,
        config,
        loops,
        ChannelSecurity.plaintext());
  }

  /**
   * As {@link #start(int, InetSocketAddress, IntFunction, PeerWireCodec, InboundHandler,
   * TransportConfig, TransportEventLoops)}, every connection secured by {@code security}: accepted
   * ones must present a node's certificate, whose node id every frame's sender must equal; a dialed
   * one must present the certificate of the node dialed.
   */
  public static <M> FramedPeerTransport<M> start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      PeerWireCodec<M> codec,
      InboundHandler<M> handler,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    return start(
        selfNodeId, listenAddress, peerAddresses, codec, handler, config, loops, security, null);
  }

  /**
   * As above; an accepted connection whose first bytes are the stream preamble (docs/formats/
   * streaming.md) is handed to {@code streams} instead of the peer protocol (null: no streams, the
   * preamble's first byte is refused as a negative frame length).
   */
  public static <M> FramedPeerTransport<M> start(
      int selfNodeId,
      InetSocketAddress listenAddress,
      IntFunction<InetSocketAddress> peerAddresses,
      PeerWireCodec<M> codec,
      InboundHandler<M> handler,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security,
      StreamAcceptor streams) {
    if (selfNodeId < 0) {
      throw new IllegalArgumentException("node id must be >= 0, was " + selfNodeId);
    }
    return new FramedPeerTransport<>(
        selfNodeId, listenAddress, peerAddresses, codec, handler, config, loops, security, streams);
  }

  public InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * Queues {@code message} for {@code nodeId} and returns at once; never blocks. False if it was
   * dropped now: too large for a frame, the transport is closed, or the node's backlog is full (it
   * is unreachable or not reading). A true result is no promise of delivery.
   */
  public boolean send(int nodeId, M message) {
    if (closed) {
      return dropped();
    }
    MessageLite envelope = encoder.encode(message);
    int size = envelope.getSerializedSize();
    if (size > config.maxFrameBytes()) {
      LOG.log(
          Level.WARNING,
          "not sending {0} bytes to node {1}: above maxFrameBytes {2} ({3})",
          size,
          nodeId,
          config.maxFrameBytes(),
          message);
      return dropped();
    }
    OutboundConnection connection = connections.computeIfAbsent(nodeId, this::newConnection);
    return connection.send(envelope) || dropped();
  }

  /**
   * Node {@code nodeId} (re)appeared — restarted, or reachable again: a connection to it that waits
   * out its reconnect back-off dials now. Without this a restarted peer hears from this node only
   * after up to {@code reconnectBackoffMax}. Any thread; a node never sent to is left alone.
   */
  public void redial(int nodeId) {
    OutboundConnection connection = connections.get(nodeId);
    if (connection != null && !closed) {
      connection.redialNow();
    }
  }

  private boolean dropped() {
    droppedMessages.increment();
    return false;
  }

  /** Messages {@link #send} refused plus queued messages discarded because a peer was down. */
  public long droppedMessages() {
    return droppedMessages.sum();
  }

  /**
   * Inbound frames refused by their header or body (docs/formats/wire.md "Header rules", "Validated
   * ranges"); each closed its connection.
   */
  public long refusedFrames() {
    return refusedFrames.sum();
  }

  /**
   * Keep-alives written on this node's dialed connections: each one that wrote nothing for {@code
   * transport.keepaliveInterval} writes one, so the receiver's idle timeout spares it.
   */
  public long keepalivesSent() {
    return connections.values().stream().mapToLong(OutboundConnection::keepalivesSent).sum();
  }

  /** What the peer port lets its inbound connections hold, and what it refused. */
  public InboundLimits limits() {
    return limits;
  }

  /**
   * Inbound frames whose sender is not the node the connection's certificate names (TLS only); each
   * closed its connection unread.
   */
  public long refusedSenders() {
    return refusedSenders.sum();
  }

  /**
   * Inbound connections accepted since start: each peer that sends to this node dials one and keeps
   * it, so this stays at the number of such peers plus one per reconnect (tests).
   */
  long connectionsAccepted() {
    return connectionsAccepted.sum();
  }

  private OutboundConnection newConnection(int nodeId) {
    OutboundConnection connection =
        new OutboundConnection(
            framing.codec().protocolName() + " node " + nodeId,
            () -> peerAddresses.apply(nodeId),
            loops,
            config,
            pipeline -> {
              InetSocketAddress target = peerAddresses.apply(nodeId);
              security.dialed(
                  pipeline.channel(),
                  target != null ? target : InetSocketAddress.createUnresolved("node", nodeId),
                  IdentityRule.node(nodeId));
              pipeline.addLast(new RefuseInbound());
            },
            closedChannel -> {},
            droppedMessages::add,
            keepalive == null ? null : () -> keepalive);
    connection.connect();
    return connection;
  }

  /** Stops accepting and sending; connections close, queued messages are dropped. */
  @Override
  public void close() {
    closed = true;
    serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    acceptedChannels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    connections.values().forEach(c -> c.close("peer transport closed"));
    connections.clear();
  }

  /**
   * Receives peer messages. Called on a transport event loop thread, one message at a time per
   * connection and in arrival order: it must not block (hand the message to the node's queue).
   */
  @FunctionalInterface
  public interface InboundHandler<M> {
    void onMessage(int fromNodeId, M message);
  }

  /** A dialed peer connection only sends: anything the remote end writes is a protocol error. */
  private static final class RefuseInbound extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      LOG.log(
          Level.WARNING,
          "closing peer connection to {0}: it sent data on a send-only connection",
          ctx.channel().remoteAddress());
      ctx.close();
    }
  }
}
