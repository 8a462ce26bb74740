package io.frsm.client.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a client connection on which nothing at all was read for the transport's idle timeout —
 * the rule a node's ports apply to what they receive, applied to what the client receives. A live
 * node always sends something within that time: the idle timeout is above the keep-alive interval
 * (three of them for frsm's client), a client that wrote nothing for an interval pings and the node
 * answers the ping, and a node answers every request within its bounded delay. So a connection this
 * silent leads to a node that is gone without a FIN or RST (a power loss, a cut cable, a frozen
 * process, a dropped NAT entry): the kernel's keep-alive would notice only after hours, while the
 * client's calls on it would time out one by one. Closing it fails the calls still waiting as a
 * dropped connection does, and the connection redials with back-off.
 */
final class SilentNodeDetector extends IdleStateHandler {
  private static final Logger LOG = LoggerFactory.getLogger(SilentNodeDetector.class);

  private final String name;
  private final long silentNanos;
  private final LongAdder closes;

  SilentNodeDetector(String name, long silentNanos, LongAdder closes) {
    super(silentNanos, 0, 0, TimeUnit.NANOSECONDS);
    this.name = name;
    this.silentNanos = silentNanos;
    this.closes = closes;
  }

  @Override
  protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
    if (evt.state() != IdleState.READER_IDLE) {
      return;
    }
    closes.increment();
    LOG.info(
        "{}: nothing heard from {} for {} ms; closing the connection and redialing",
        name,
        ctx.channel().remoteAddress(),
        TimeUnit.NANOSECONDS.toMillis(silentNanos));
    ctx.close();
  }
}
