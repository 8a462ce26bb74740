package io.frsm.client.transport;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Ticker;
import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#WRITER_IDLE_STATE_EVENT} (the first of a quiet spell as {@link
 * IdleStateEvent#FIRST_WRITER_IDLE_STATE_EVENT}) once the connection flushed nothing for an
 * interval, and again every interval while it stays quiet: the events of Netty's {@code
 * IdleStateHandler(0, interval, 0)}, for the keep-alive, without its cost per frame. That handler
 * moves its clock when a write completes, so it turns each write's void promise into a real one and
 * adds a listener to it: a promise per frame. This one reads the clock once per flush instead (a
 * {@link CoalescingWriter} flushes once per batch of frames).
 *
 * <p>The one difference: a flush counts from when it was asked for, not from when the socket took
 * its bytes. They differ only while the socket's buffer is full, that is while the other end is not
 * reading what it already has; one more frame would not help it (and a keep-alive is not written
 * into an unwritable channel anyway).
 *
 * <p>Event-loop confined, one instance per channel.
 */
final class KeepaliveTimer extends ChannelDuplexHandler {
  private final long intervalNanos;
  private Ticker ticker;
  private long lastFlushNanos;
  private boolean firstOfSpell = true;
  private Future<?> check; // null: not started, or stopped
  private boolean stopped;
  private Runnable checkTask;

  KeepaliveTimer(long intervalNanos) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("keep-alive interval must be positive: " + intervalNanos);
    }
    this.intervalNanos = intervalNanos;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start(ctx);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (ticker != null) {
      lastFlushNanos = ticker.nanoTime();
      firstOfSpell = true;
    }
    ctx.flush();
  }

  private void start(ChannelHandlerContext ctx) {
    if (check != null || stopped) {
      return;
    }
    ticker = ctx.executor().ticker();
    lastFlushNanos = ticker.nanoTime();
    checkTask = () -> check(ctx);
    check = ctx.executor().schedule(checkTask, intervalNanos, TimeUnit.NANOSECONDS);
  }

  private void stop() {
    stopped = true;
    if (check != null) {
      check.cancel(false);
      check = null;
    }
  }

  private void check(ChannelHandlerContext ctx) {
    if (stopped || !ctx.channel().isOpen()) {
      return;
    }
    long left = intervalNanos - (ticker.nanoTime() - lastFlushNanos);
    if (left > 0) {
      check = ctx.executor().schedule(checkTask, left, TimeUnit.NANOSECONDS);
      return;
    }
    // Scheduled before the event: a keep-alive written from it moves lastFlushNanos, and the next
    // check then waits out the rest of the interval from there.
    check = ctx.executor().schedule(checkTask, intervalNanos, TimeUnit.NANOSECONDS);
    IdleStateEvent event =
        firstOfSpell
            ? IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT
            : IdleStateEvent.WRITER_IDLE_STATE_EVENT;
    firstOfSpell = false;
    ctx.fireUserEventTriggered(event);
  }
}
