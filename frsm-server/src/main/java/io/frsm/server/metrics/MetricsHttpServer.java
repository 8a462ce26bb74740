package io.frsm.server.metrics;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The endpoint's HTTP/1.1 server, built so that no client can stop it from answering: non-blocking
 * on one Netty event loop of its own (the node's transport loops neither slow it nor are slowed by
 * it), one request per connection, and for every connection a deadline for its request head ({@link
 * RequestHeadDeadline}), a cap on the head's size (larger heads are answered 431 or 414), a
 * deadline for each write of the answer, and a cap on the connections open at once ({@link
 * ConnectionCap}). A client that connects and stays silent, or sends one byte at a time, holds one
 * connection for at most the request timeout; the other connections are answered meanwhile.
 *
 * <p>Thread-safe. {@link #close()} closes every connection and stops the event loop.
 */
final class MetricsHttpServer implements AutoCloseable {
  /** Longest request line ({@code GET /metrics HTTP/1.1}) accepted; longer ones are 414. */
  static final int MAX_REQUEST_LINE_BYTES = 1024;

  /** Most header bytes accepted (names, values and line ends); more is 431. */
  static final int MAX_HEADER_BYTES = 8192;

  private final EventLoopGroup loop;
  private final Channel serverChannel;
  private final ConnectionCap cap;

  private MetricsHttpServer(EventLoopGroup loop, Channel serverChannel, ConnectionCap cap) {
    this.loop = loop;
    this.serverChannel = serverChannel;
    this.cap = cap;
  }

  /**
   * Binds {@code settings.address()} and serves {@code routes}.
   *
   * @param events told of the connections the endpoint closed on its own
   * @throws IOException if the address cannot be bound (a {@link java.net.BindException} when it is
   *     taken)
   */
  static MetricsHttpServer start(
      EndpointSettings settings, EndpointRoutes routes, ConnectionEvents events)
      throws IOException {
    EventLoopGroup loop =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("frsm-metrics-http", true), NioIoHandler.newFactory());
    ConnectionCap cap = new ConnectionCap(settings.maxConnections());
    long timeoutNanos = settings.requestTimeout().toNanos();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 128)
            // The client may half-close once it sent its request (the answer still goes out).
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (!cap.admit(ch)) {
                      events.refusedOverCap();
                      ch.close();
                      return;
                    }
                    ch.pipeline()
                        .addLast(new WriteTimeoutHandler(timeoutNanos, TimeUnit.NANOSECONDS))
                        .addLast(
                            new HttpServerCodec(
                                new HttpDecoderConfig()
                                    .setMaxInitialLineLength(MAX_REQUEST_LINE_BYTES)
                                    .setMaxHeaderSize(MAX_HEADER_BYTES)))
                        .addLast(
                            new RequestHeadDeadline(
                                settings.requestTimeout(), events::closedForRequestTimeout))
                        .addLast(new EndpointExchange(routes, settings.requestTimeout()));
                  }
                });
    ChannelFuture bound = bootstrap.bind(settings.address()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
      Throwable cause = bound.cause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("cannot bind the metrics endpoint to " + settings.address(), cause);
    }
    return new MetricsHttpServer(loop, bound.channel(), cap);
  }

  /** The bound address (the actual port when 0 was asked). */
  InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** The connections open now (at most {@code maxConnections}). */
  int openConnections() {
    return cap.open();
  }

  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly();
    cap.closeAll();
    // The quiet period lets the loop run the last tasks of connections closed meanwhile (one
    // accepted just before the server channel closed) before it stops.
    loop.shutdownGracefully(100, 5000, TimeUnit.MILLISECONDS).awaitUninterruptibly();
  }

  /** What the server tells of connections it closed on its own (called on its event loop). */
  interface ConnectionEvents {
    /** A connection was closed on accept: {@code maxConnections} were open. */
    void refusedOverCap();

    /** A connection was closed because its request head did not arrive in time. */
    void closedForRequestTimeout();
  }
}
