package io.frsm.client.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link KeepaliveTimer} on the embedded channel's own clock: no waiting in real time. */
class KeepaliveTimerTest {
  private static final long INTERVAL_MS = 1000;

  private final List<Object> events = new ArrayList<>();

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline()
        .addLast(new KeepaliveTimer(TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS)))
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
              }
            });
    return ch;
  }

  private static void advance(EmbeddedChannel ch, long millis) {
    ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
  }

  @Test
  void aQuietConnection_isToldEveryInterval_theFirstOfTheSpellMarked() {
    EmbeddedChannel ch = channel();
    advance(ch, INTERVAL_MS - 1);
    assertEquals(List.of(), events);
    advance(ch, 1);
    assertEquals(List.of(IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT), events);
    advance(ch, INTERVAL_MS);
    assertEquals(
        List.of(
            IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT, IdleStateEvent.WRITER_IDLE_STATE_EVENT),
        events);
    ch.finishAndReleaseAll();
  }

  @Test
  void flushes_putTheEventOff_byAWholeIntervalFromTheLastOne() {
    EmbeddedChannel ch = channel();
    for (int i = 0; i < 5; i++) {
      advance(ch, INTERVAL_MS / 2);
      ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}), ch.voidPromise());
    }
    assertEquals(List.of(), events, "busy: never idle");
    advance(ch, INTERVAL_MS - 1);
    assertEquals(List.of(), events);
    advance(ch, 1);
    assertEquals(List.of(IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT), events);
    // A write without a flush is not yet on its way: it does not count.
    ch.write(Unpooled.wrappedBuffer(new byte[] {2}), ch.voidPromise());
    advance(ch, INTERVAL_MS);
    assertEquals(2, events.size());
    ch.flush();
    advance(ch, INTERVAL_MS);
    assertEquals(IdleStateEvent.FIRST_WRITER_IDLE_STATE_EVENT, events.get(2), "a new spell");
    ch.finishAndReleaseAll();
  }

  @Test
  void aClosedConnection_isToldNothingMore() {
    EmbeddedChannel ch = channel();
    ch.close();
    advance(ch, 10 * INTERVAL_MS);
    assertTrue(events.isEmpty(), events.toString());
  }
}
