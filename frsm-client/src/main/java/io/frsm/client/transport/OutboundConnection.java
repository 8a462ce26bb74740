package io.frsm.client.transport;

import com.google.protobuf.MessageLite;
import io.frsm.client.transport.tls.IdentityGate;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dialed connection that keeps itself connected: it dials on first use, and after a failed
 * attempt or a lost connection dials again after an exponential back-off ({@link Backoff}) until
 * {@link #close()}.
 *
 * <p>Frames offered while not connected wait in the {@link CoalescingWriter}'s bounded queue; a
 * failed connect attempt discards them (the target is unreachable: peer messages are lossy by
 * design, and a client learns its request was not executed). A connection that drops keeps its
 * queue for the next one: frames still queued were never written.
 *
 * <p>With a keep-alive, a connection that wrote nothing for {@link
 * TransportConfig#keepaliveInterval()} writes one, so that the receiver's idle timeout ({@link
 * TransportConfig#idleTimeout()}) closes only dead or leaked connections, never a quiet live one (a
 * client that only watches the topology, a peer with nothing to say).
 *
 * <p>All state but the writer's queue lives on one event loop.
 */
public final class OutboundConnection {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundConnection.class);

  private enum State {
    IDLE,
    CONNECTING,
    CONNECTED,
    WAITING_TO_RECONNECT,
    CLOSED
  }

  private final String name;
  private final Supplier<InetSocketAddress> address;
  private final Bootstrap bootstrap;
  private final CoalescingWriter writer;
  private final Backoff backoff;
  private final Consumer<Channel> onChannelClosed;
  private final Consumer<Integer> onDiscarded;
  private final Supplier<? extends MessageLite> keepalive;
  private final LongAdder keepalivesSent = new LongAdder();
  private State state = State.IDLE;

  /** The pending reconnect timer, if any (loop only): a redial cancels it. */
  private io.netty.util.concurrent.ScheduledFuture<?> reconnectTimer;

  private Channel channel;
  private boolean lastAttemptFailed;

  /**
   * @param name for logs, e.g. "peer 3"
   * @param address resolved at every attempt (membership may move a node); null = unknown
   * @param inbound adds the connection's inbound handlers after the frame encoder
   * @param onChannelClosed told on the loop when a connected channel closes
   * @param onDiscarded told on the loop how many queued frames a failed attempt discarded
   */
  public OutboundConnection(
      String name,
      Supplier<InetSocketAddress> address,
      TransportEventLoops loops,
      TransportConfig config,
      Consumer<ChannelPipeline> inbound,
      Consumer<Channel> onChannelClosed,
      Consumer<Integer> onDiscarded) {
    this(name, address, loops, config, inbound, onChannelClosed, onDiscarded, null);
  }

  /**
   * As above, writing {@code keepalive}'s frame whenever the connection wrote nothing for {@link
   * TransportConfig#keepaliveInterval()} (null: never).
   */
  public OutboundConnection(
      String name,
      Supplier<InetSocketAddress> address,
      TransportEventLoops loops,
      TransportConfig config,
      Consumer<ChannelPipeline> inbound,
      Consumer<Channel> onChannelClosed,
      Consumer<Integer> onDiscarded,
      Supplier<? extends MessageLite> keepalive) {
    this.name = name;
    this.keepalive = keepalive;
    long keepaliveNanos = config.keepaliveInterval().toNanos();
    this.address = address;
    this.onChannelClosed = onChannelClosed;
    this.onDiscarded = onDiscarded;
    EventLoop loop = loops.group().next();
    this.writer =
        new CoalescingWriter(loop, config.maxQueuedFramesPerConnection(), this::connectIfIdle);
    this.backoff =
        new Backoff(
            config.reconnectBackoffMin().toMillis(), config.reconnectBackoffMax().toMillis());
    this.bootstrap =
        new Bootstrap()
            .group(loop)
            .channel(loops.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.RECVBUF_ALLOCATOR, ReadBuffers.allocator())
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
            .option(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    config.writeBufferLowWaterMarkBytes(), config.writeBufferHighWaterMarkBytes()))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(FrameEncoder.INSTANCE);
                    if (keepalive != null) {
                      // Its WRITER_IDLE event reaches WritabilityAndErrors, which writes one.
                      ch.pipeline().addLast(new KeepaliveTimer(keepaliveNanos));
                    }
                    inbound.accept(ch.pipeline());
                    ch.pipeline().addLast(new WritabilityAndErrors());
                  }
                });
  }

  public EventLoop loop() {
    return writer.loop();
  }

  /**
   * Failed attempts (and lost connections) since the last successful connect: what the next
   * back-off grows from. Any thread but the loop; waits for the loop to read it.
   */
  public int failuresSinceConnected() {
    return loop().submit(backoff::failures).syncUninterruptibly().getNow();
  }

  /** Keep-alive frames written since this connection was made (all channels). */
  public long keepalivesSent() {
    return keepalivesSent.sum();
  }

  /** Queues a frame; false if the queue is full (fail fast). Any thread. */
  public boolean send(Object frame) {
    return writer.offer(frame);
  }

  /** Dials now unless a connection exists or an attempt is under way. Any thread. */
  public void connect() {
    loop().execute(this::connectIfIdle);
  }

  /**
   * The peer (re)appeared, perhaps restarted: if this connection waits out a back-off, dial now
   * from a fresh back-off instead. Any thread.
   */
  public void redialNow() {
    loop()
        .execute(
            () -> {
              if (state == State.WAITING_TO_RECONNECT) {
                if (reconnectTimer != null) {
                  reconnectTimer.cancel(false); // one chain of attempts, not two
                  reconnectTimer = null;
                }
                backoff.reset();
                dial();
              }
            });
  }

  private void connectIfIdle() {
    if (state == State.IDLE) {
      dial();
    }
  }

  private void dial() {
    assert loop().inEventLoop();
    InetSocketAddress target = address.get();
    if (target == null) {
      attemptFailed("no address known");
      return;
    }
    state = State.CONNECTING;
    bootstrap.connect(target).addListener((ChannelFuture f) -> connected(f, target));
  }

  private void connected(ChannelFuture f, InetSocketAddress target) {
    if (state == State.CLOSED) {
      f.channel().close();
      return;
    }
    if (!f.isSuccess()) {
      attemptFailed("cannot connect to " + target + ": " + f.cause());
      return;
    }
    if (lastAttemptFailed) {
      LOG.info("{}: connected to {} again", name, target);
      lastAttemptFailed = false;
    }
    backoff.reset();
    state = State.CONNECTED;
    channel = f.channel();
    channel.closeFuture().addListener((ChannelFuture c) -> channelClosed(c.channel()));
    if (!verified(channel)) {
      return; // TLS: frames wait until the other end is verified (WritabilityAndErrors attaches)
    }
    writer.attach(channel);
  }

  /** Whether frames may go out on {@code ch}: plaintext, or TLS with the other end verified. */
  private static boolean verified(Channel ch) {
    return !IdentityGate.guards(ch) || IdentityGate.identity(ch) != null;
  }

  /**
   * The connection wrote nothing for a keep-alive interval: write one, on the current channel only
   * once its other end is verified, and not into a full write buffer (a connection that cannot
   * drain what it has gains nothing from one more frame).
   */
  private void writeKeepalive(Channel ch) {
    if (state != State.CONNECTED || ch != channel || !verified(ch) || !ch.isWritable()) {
      return;
    }
    keepalivesSent.increment();
    ch.writeAndFlush(keepalive.get(), ch.voidPromise());
  }

  private void attemptFailed(String reason) {
    int discarded = writer.discardQueued(name + " unreachable: " + reason);
    if (discarded > 0) {
      onDiscarded.accept(discarded);
    }
    if (!lastAttemptFailed) {
      LOG.warn("{}: {}; retrying with back-off", name, reason);
      lastAttemptFailed = true;
    }
    scheduleReconnect();
  }

  private void channelClosed(Channel closed) {
    writer.detach();
    channel = null;
    onChannelClosed.accept(closed);
    if (state == State.CLOSED) {
      return;
    }
    LOG.info("{}: connection to {} closed", name, closed.remoteAddress());
    scheduleReconnect();
  }

  private void scheduleReconnect() {
    state = State.WAITING_TO_RECONNECT;
    reconnectTimer =
        loop()
            .schedule(
                () -> {
                  reconnectTimer = null;
                  if (state == State.WAITING_TO_RECONNECT) {
                    dial();
                  }
                },
                backoff.nextDelayMillis(),
                TimeUnit.MILLISECONDS);
  }

  /**
   * Stops reconnecting, closes the channel and discards queued frames. Waits for the loop to do it
   * unless called on the loop.
   */
  public void close(String reason) {
    Runnable close =
        () -> {
          state = State.CLOSED;
          writer.discardQueued(reason);
          if (channel != null) {
            channel.close();
          }
        };
    if (loop().inEventLoop()) {
      close.run();
    } else if (!loop().isShuttingDown()) {
      loop().submit(close).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Resumes writing when the channel drains; closes it on any error. With TLS, starts writing once
   * the other end's identity is verified, and discards the queued frames when it is refused: they
   * were never written, and the target will not take them.
   */
  private final class WritabilityAndErrors extends ChannelInboundHandlerAdapter {
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent idle) {
        if (idle.state() == IdleState.WRITER_IDLE && keepalive != null) {
          writeKeepalive(ctx.channel());
        }
        return;
      }
      if (evt == IdentityGate.Verified.INSTANCE) {
        if (state == State.CONNECTED && ctx.channel() == channel) {
          writer.attach(channel);
        }
      } else if (evt instanceof IdentityGate.Refused refused) {
        int discarded = writer.discardQueued(name + ": " + refused.reason());
        if (discarded > 0) {
          onDiscarded.accept(discarded);
        }
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      writer.writabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn("{}: closing connection after error: {}", name, cause.toString());
      ctx.close();
    }
  }
}
