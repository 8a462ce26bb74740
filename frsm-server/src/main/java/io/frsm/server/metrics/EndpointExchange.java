package io.frsm.server.metrics;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One connection's single exchange: the first request is answered ({@link EndpointRoutes}), with
 * {@code Connection: close}; anything the client sends after it is read and dropped. Once the
 * answer is written the server half-closes (FIN) and closes when the client closes its side, or
 * after the linger time: closing at once with request bytes still unread would make the kernel
 * reset the connection, and the client could lose the answer before reading it (a 431 sent while
 * the rest of an oversized head is still arriving).
 *
 * <p>Event-loop confined: one instance per connection. Answers computed on the scrape thread come
 * back to the event loop as plain bytes.
 */
final class EndpointExchange extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(EndpointExchange.class.getName());

  private final EndpointRoutes routes;
  private final long lingerNanos;
  private boolean requestTaken;
  private boolean answered;
  private ScheduledFuture<?> lingerEnd;

  EndpointExchange(EndpointRoutes routes, Duration linger) {
    this.routes = routes;
    this.lingerNanos = linger.toNanos();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (!requestTaken && msg instanceof HttpRequest request) {
        requestTaken = true;
        boolean head = HttpMethod.HEAD.equals(request.method());
        routes.answer(request, answer -> onEventLoop(ctx, () -> respond(ctx, answer, head)));
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private static void onEventLoop(ChannelHandlerContext ctx, Runnable task) {
    if (ctx.executor().inEventLoop()) {
      task.run();
      return;
    }
    try {
      ctx.executor().execute(task);
    } catch (RejectedExecutionException shutDown) {
      // The endpoint closed while the scrape ran: its connections are closed with it.
    }
  }

  private void respond(ChannelHandlerContext ctx, Answer answer, boolean head) {
    if (!ctx.channel().isActive()) {
      return;
    }
    FullHttpResponse response = AnswerResponses.of(answer, head);
    ctx.writeAndFlush(response).addListener(written -> endAfter(ctx, written));
  }

  private void endAfter(ChannelHandlerContext ctx, Future<?> written) {
    answered = true;
    if (!written.isSuccess()
        || !(ctx.channel() instanceof DuplexChannel duplex)
        || duplex.isInputShutdown()) {
      ctx.close();
      return;
    }
    duplex
        .shutdownOutput()
        .addListener(
            halfClosed -> {
              if (!halfClosed.isSuccess()) {
                ctx.close();
              }
            });
    lingerEnd = ctx.executor().schedule(() -> ctx.close(), lingerNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof ChannelInputShutdownEvent && (answered || !requestTaken)) {
      // The client is done: after the answer, or before it sent a whole request.
      ctx.close();
    }
    ReferenceCountUtil.release(event);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (lingerEnd != null) {
      lingerEnd.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset by the client, or a write that timed out: either way this connection is over.
    LOG.log(System.Logger.Level.DEBUG, "metrics endpoint connection failed", cause);
    ctx.close();
  }
}
