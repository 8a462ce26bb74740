package io.frsm.server.metrics;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose whole request head has not arrived within the timeout of its accept: a
 * client that sends nothing, or one byte at a time (slowloris), keeps a connection at most that
 * long, however steadily it trickles. A read timeout would not do: each trickled byte would restart
 * it. Placed after the HTTP decoder, which hands on a request (or a request it failed to decode)
 * once the head is complete.
 *
 * <p>Event-loop confined: one instance per connection.
 */
final class RequestHeadDeadline extends ChannelInboundHandlerAdapter {
  private final long timeoutNanos;
  private final Runnable onExpiry;
  private ScheduledFuture<?> expiry;
  private boolean headArrived;

  /** {@code onExpiry} runs on the event loop just before an expired connection is closed. */
  RequestHeadDeadline(Duration timeout, Runnable onExpiry) {
    this.timeoutNanos = timeout.toNanos();
    this.onExpiry = onExpiry;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    expiry =
        ctx.executor()
            .schedule(
                () -> {
                  if (!headArrived && ctx.channel().isOpen()) {
                    onExpiry.run();
                    ctx.close();
                  }
                },
                timeoutNanos,
                TimeUnit.NANOSECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!headArrived && msg instanceof HttpRequest) {
      headArrived = true;
      cancel();
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  private void cancel() {
    if (expiry != null) {
      expiry.cancel(false);
      expiry = null;
    }
  }
}
