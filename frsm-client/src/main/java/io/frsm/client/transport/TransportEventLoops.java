package io.frsm.client.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event loops and channel types every transport of a node shares: native epoll when the
 * platform has it (Linux x86-64 with the bundled library), NIO otherwise, and the budget of bytes
 * that half-sent inbound frames may hold across every listening port on these loops ({@link
 * #nodeFrameBudget}): a node's ports share its loops, so that budget is the node's. Owned by
 * whoever creates it; close it after the transports that use it.
 */
public final class TransportEventLoops implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportEventLoops.class);

  private final EventLoopGroup group;
  private final boolean nativeEpoll;

  /** Created by the first listening port that asks; guarded by {@code this}. */
  private InboundFrameBudget nodeFrameBudget;

  private TransportEventLoops(int threads, boolean nativeEpoll) {
    this.nativeEpoll = nativeEpoll;
    IoHandlerFactory factory =
        nativeEpoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    this.group = new MultiThreadIoEventLoopGroup(threads, factory);
  }

  /**
   * {@code threads} event loops; epoll if {@code preferNative} and available, else NIO (logged with
   * the reason).
   */
  public static TransportEventLoops create(int threads, boolean preferNative) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    boolean epoll = preferNative && Epoll.isAvailable();
    if (preferNative && !epoll) {
      LOG.info(
          "native epoll unavailable ({}); using NIO", String.valueOf(Epoll.unavailabilityCause()));
    }
    return new TransportEventLoops(threads, epoll);
  }

  public boolean nativeEpoll() {
    return nativeEpoll;
  }

  /**
   * The budget every listening port on these loops shares for inbound frames begun but not yet
   * complete, of {@link TransportConfig#nodeFrameBudgetBytes()}. Ports sharing loops must agree on
   * its size: one that does not is refused (a configuration error, not a runtime condition).
   */
  public synchronized InboundFrameBudget nodeFrameBudget(TransportConfig config) {
    long bytes = config.nodeFrameBudgetBytes();
    if (nodeFrameBudget == null) {
      nodeFrameBudget = new InboundFrameBudget(bytes);
    } else if (nodeFrameBudget.budgetBytes() != bytes) {
      throw new IllegalArgumentException(
          "ports on one set of event loops share one node frame budget: this port asks for "
              + bytes
              + " bytes, an earlier one for "
              + nodeFrameBudget.budgetBytes());
    }
    return nodeFrameBudget;
  }

  public EventLoopGroup group() {
    return group;
  }

  /** The event loops, in a fixed order (for work that must share a loop with the transport). */
  public java.util.List<io.netty.util.concurrent.EventExecutor> loops() {
    java.util.List<io.netty.util.concurrent.EventExecutor> loops = new java.util.ArrayList<>();
    group.iterator().forEachRemaining(loops::add);
    return loops;
  }

  public Class<? extends SocketChannel> socketChannel() {
    return nativeEpoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public Class<? extends ServerChannel> serverChannel() {
    return nativeEpoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** Stops the event loops and waits (up to 5 s) for them to finish. */
  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
