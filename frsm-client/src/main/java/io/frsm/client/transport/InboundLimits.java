package io.frsm.client.transport;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one listening port (the peer port, the client port) lets its inbound connections hold, so
 * that no number of connections or half-sent frames can exhaust a node's file descriptors or direct
 * memory (issue 24: 20,000 idle connections used up the descriptors; 80 half-sent 16 MB frames grew
 * a node by 1.2 GB at -Xmx1g):
 *
 * <ul>
 *   <li>at most {@link TransportConfig#maxInboundConnections()} open connections: one more is
 *       closed on arrival ({@link #connectionGate()});
 *   <li>at most {@link TransportConfig#maxInboundConnectionsPerAddress()} of them from one remote
 *       IP address: one more from it is closed on arrival too ({@link ConnectionsPerAddress});
 *   <li>frames begun but not complete reserve their declared length from a budget of {@link
 *       TransportConfig#partialFrameBudgetBytes()} shared by the port's connections, and from the
 *       node's budget of {@link TransportConfig#nodeFrameBudgetBytes()} shared by all its ports
 *       (held by the {@link TransportEventLoops} they share); a frame that does not fit either
 *       closes its connection ({@link FrameDecoder});
 *   <li>a begun frame must be complete within {@link TransportConfig#partialFrameTimeout()}, or its
 *       connection is closed ({@link FrameDecoder});
 *   <li>a connection that received nothing for {@link TransportConfig#idleTimeout()} is closed
 *       ({@link #idleCloser()}): live clients and peers send keep-alives, so this ends only dead,
 *       silent or leaked connections, which would otherwise hold a slot of the caps for ever.
 * </ul>
 *
 * Each refusal is counted and logged at most once a second (with the number not logged).
 * Thread-safe: the port's event loops share it.
 */
public final class InboundLimits {
  private static final System.Logger LOG = System.getLogger(InboundLimits.class.getName());

  /** The remote address a connection was counted under, so its close uncounts exactly that. */
  private static final AttributeKey<InetAddress> COUNTED_ADDRESS =
      AttributeKey.valueOf(InboundLimits.class, "countedAddress");

  private final String port;
  private final int maxConnections;
  private final InboundFrameBudget portBudget;
  private final InboundFrameBudget nodeBudget;
  private final long partialFrameTimeoutNanos;
  private final long idleTimeoutNanos;
  private final AtomicInteger open = new AtomicInteger();
  private final ConnectionsPerAddress perAddress;
  private final LongAdder refusedConnections = new LongAdder();
  private final LongAdder refusedPerAddress = new LongAdder();
  private final LongAdder refusedFrames = new LongAdder();
  private final LongAdder refusedNodeFrames = new LongAdder();
  private final LongAdder stalledFrames = new LongAdder();
  private final LongAdder idleConnections = new LongAdder();
  private final LogThrottle idleLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final LogThrottle connectionLog =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final LogThrottle addressLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final LogThrottle frameLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final LogThrottle nodeFrameLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  /** Apart from {@link #frameLog}, so each line counts only the refusals of its own kind. */
  private final LogThrottle stalledLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private final ChannelHandler gate = new Gate();

  /**
   * {@code port} names the listener in logs ("client port", "peer port"); the port shares no
   * node-wide budget with another (it has one of {@link TransportConfig#nodeFrameBudgetBytes()} to
   * itself).
   */
  public InboundLimits(String port, TransportConfig config) {
    this(port, config, new InboundFrameBudget(config.nodeFrameBudgetBytes()));
  }

  /**
   * As above, the port's begun frames held to {@code nodeBudget} too, with the node's other ports.
   */
  public InboundLimits(String port, TransportConfig config, InboundFrameBudget nodeBudget) {
    this.port = port;
    this.maxConnections = config.maxInboundConnections();
    this.perAddress = new ConnectionsPerAddress(config.maxInboundConnectionsPerAddress());
    this.portBudget = new InboundFrameBudget(config.partialFrameBudgetBytes());
    this.nodeBudget = java.util.Objects.requireNonNull(nodeBudget, "nodeBudget");
    this.partialFrameTimeoutNanos = config.partialFrameTimeout().toNanos();
    this.idleTimeoutNanos = config.idleTimeout().toNanos();
  }

  /**
   * A new handler (one per connection, not sharable) that closes its connection once nothing was
   * read for {@link TransportConfig#idleTimeout()}. Placed after TLS, so only what the other end
   * sent inside the session counts (its handshake has a timeout of its own).
   */
  public ChannelHandler idleCloser() {
    return new IdleCloser();
  }

  /** Connections closed because they received nothing for {@link TransportConfig#idleTimeout()}. */
  public long idleConnections() {
    return idleConnections.sum();
  }

  /**
   * The first handler of every accepted connection: closes it at once if the port holds its maximum
   * already. Sharable.
   */
  public ChannelHandler connectionGate() {
    return gate;
  }

  /** Connections open on this port now. */
  public int openConnections() {
    return open.get();
  }

  /** Connections closed on arrival because the port held its maximum. */
  public long refusedConnections() {
    return refusedConnections.sum();
  }

  /** Connections closed on arrival because their remote address held its maximum already. */
  public long refusedConnectionsPerAddress() {
    return refusedPerAddress.sum();
  }

  /** Connections open on this port now from {@code address} (refused ones until closed). */
  public int openConnectionsFrom(InetAddress address) {
    return perAddress.openFrom(address);
  }

  /** Connections closed because their begun frame did not fit the port's budget. */
  public long refusedFrames() {
    return refusedFrames.sum();
  }

  /**
   * Connections of this port closed because their begun frame fit the port's budget but not what
   * the node's other ports left of the node-wide one.
   */
  public long refusedNodeFrames() {
    return refusedNodeFrames.sum();
  }

  /** Connections closed because their begun frame was not complete in time. */
  public long stalledFrames() {
    return stalledFrames.sum();
  }

  /** Bytes reserved by begun frames of this port now. */
  public long reservedBytes() {
    return portBudget.reservedBytes();
  }

  /** The node-wide budget this port shares with the node's other ports. */
  public InboundFrameBudget nodeBudget() {
    return nodeBudget;
  }

  long partialFrameTimeoutNanos() {
    return partialFrameTimeoutNanos;
  }

  /**
   * Reserves {@code bytes} for a begun frame of a connection from {@code remote}; false (counted,
   * logged) if the budget cannot hold them.
   */
  boolean reserve(long bytes, Object remote) {
    if (!portBudget.tryReserve(bytes)) {
      refusedFrames.increment();
      frameLog.log(
          "{0}: closing connection from {1}: its frame of {2} bytes does not fit the {3} bytes"
              + " left of the port''s budget for frames not yet complete"
              + " (transport.partialFrameBudgetBytes)",
          port, remote, bytes, portBudget.leftBytes());
      return false;
    }
    if (!nodeBudget.tryReserve(bytes)) {
      portBudget.release(bytes); // all or nothing: the frame holds neither
      refusedNodeFrames.increment();
      nodeFrameLog.log(
          "{0}: closing connection from {1}: its frame of {2} bytes does not fit the {3} bytes"
              + " left of the node''s budget for frames not yet complete, all ports together"
              + " (transport.nodeFrameBudgetBytes)",
          port, remote, bytes, nodeBudget.leftBytes());
      return false;
    }
    return true;
  }

  /** Returns what {@link #reserve} took, to the port and to the node. */
  void release(long bytes) {
    portBudget.release(bytes);
    nodeBudget.release(bytes);
  }

  /** A begun frame of a connection from {@code remote} was not complete in time. */
  void stalled(Object remote, long bufferedBytes) {
    stalledFrames.increment();
    stalledLog.log(
        "{0}: closing connection from {1}: a frame begun {2} ms ago is still incomplete ({3}"
            + " bytes received)",
        port, remote, TimeUnit.NANOSECONDS.toMillis(partialFrameTimeoutNanos), bufferedBytes);
  }

  private final class IdleCloser extends IdleStateHandler {
    IdleCloser() {
      super(idleTimeoutNanos, 0, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
      if (evt.state() != IdleState.READER_IDLE || !ctx.channel().isActive()) {
        return;
      }
      idleConnections.increment();
      idleLog.log(
          "{0}: closing connection from {1}: nothing received for {2} ms (transport.idleTimeout)",
          port, ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos));
      ctx.close();
    }
  }

  @ChannelHandler.Sharable
  private final class Gate extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      // Counted first, both ways, so channelInactive gives back exactly what was taken.
      boolean withinPort = open.incrementAndGet() <= maxConnections;
      InetAddress address = remoteAddress(ctx);
      boolean withinAddress = true;
      if (address != null) {
        ctx.channel().attr(COUNTED_ADDRESS).set(address);
        withinAddress = perAddress.open(address);
      }
      if (!withinPort) {
        refusedConnections.increment();
        connectionLog.log(
            "{0}: closing connection from {1}: the port holds its maximum of {2} connections",
            port, ctx.channel().remoteAddress(), maxConnections);
        ctx.close();
        return; // channelInactive follows and gives the counts back
      }
      if (!withinAddress) {
        refusedPerAddress.increment();
        addressLog.log(
            "{0}: closing connection from {1}: that address holds its maximum of {2} connections"
                + " (transport.maxInboundConnectionsPerAddress)",
            port, ctx.channel().remoteAddress(), perAddress.max());
        ctx.close();
        return;
      }
      ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      open.decrementAndGet();
      InetAddress address = ctx.channel().attr(COUNTED_ADDRESS).getAndSet(null);
      if (address != null) {
        perAddress.close(address);
      }
      ctx.fireChannelInactive();
    }

    /** The remote IP address; null for a channel that has none (an in-JVM channel in tests). */
    private InetAddress remoteAddress(ChannelHandlerContext ctx) {
      return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }
  }
}
