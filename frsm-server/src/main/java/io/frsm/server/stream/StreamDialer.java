package io.frsm.server.stream;

import io.frsm.client.transport.FrameEncoder;
import io.frsm.client.transport.tls.IdentityGate;
import io.frsm.client.transport.tls.IdentityRule;
import io.frsm.transport.stream.StreamFrame;
import io.frsm.transport.stream.StreamFraming;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Dials a source's peer port for a stream: the node's TLS with the source's own node identity
 * required, the stream framing, and a handler that reports what happens on the connection to a
 * {@link Events} (on the event loop: the receiver hands each event to its own thread).
 */
final class StreamDialer {
  /** What a stream connection reports; each called on the connection's event loop. */
  interface Events {
    /** The connection may carry frames (TLS identity verified, or plaintext and active). */
    void ready(Channel channel);

    void frame(Channel channel, StreamFrame frame);

    /** The connection failed or went idle; it closes. */
    void failed(Channel channel, String why);

    /** The connection closed (after anything above). */
    void closed(Channel channel);
  }

  private StreamDialer() {}

  static Channel dial(
      ReceiverContext context, int source, InetSocketAddress address, Events events) {
    StreamFraming framing = new StreamFraming(context.clusterId());
    long idleMillis = context.settings().idleTimeout().toMillis();
    Bootstrap bootstrap =
        new Bootstrap()
            .group(context.loops().group())
            .channel(context.loops().socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    context.security().dialed(ch, address, IdentityRule.node(source));
                    ch.pipeline()
                        .addLast(new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS))
                        .addLast(framing.decoder(() -> {}, context.dialedLimits()))
                        .addLast(FrameEncoder.INSTANCE)
                        .addLast(new Inbound(events, source, context));
                  }
                });
    Channel ch = bootstrap.connect(address).channel();
    ch.closeFuture().addListener(f -> events.closed(ch));
    return ch;
  }

  private static final class Inbound extends SimpleChannelInboundHandler<StreamFrame> {
    private final Events events;
    private final int source;
    private final ReceiverContext context;

    Inbound(Events events, int source, ReceiverContext context) {
      this.events = events;
      this.source = source;
      this.context = context;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      if (!IdentityGate.guards(ctx.channel())) {
        events.ready(ctx.channel());
      }
      ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt == IdentityGate.Verified.INSTANCE) {
        events.ready(ctx.channel());
      } else if (evt instanceof IdleStateEvent) {
        events.failed(
            ctx.channel(),
            "node " + source + " sent nothing for " + context.settings().idleTimeout());
        ctx.close();
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, StreamFrame frame) {
      events.frame(ctx.channel(), frame);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      events.failed(ctx.channel(), "connection error: " + cause);
      ctx.close();
    }
  }
}
