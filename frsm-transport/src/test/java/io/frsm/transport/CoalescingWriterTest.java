package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Empty;
import io.frsm.client.transport.CoalescingWriter;
import io.frsm.client.transport.TransportEventLoops;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Writes are coalesced (one drain task and one flush per batch offered between event-loop turns)
 * and bounded (an unwritable channel keeps frames queued, and a full queue refuses at once).
 */
class CoalescingWriterTest {
  private static final Empty FRAME = Empty.getDefaultInstance();

  /** A channel that counts flushes; its pending tasks run only when the test says so. */
  private static EmbeddedChannel channel(AtomicInteger flushes) {
    return new EmbeddedChannel(
        new ChannelOutboundHandlerAdapter() {
          @Override
          public void flush(ChannelHandlerContext ctx) {
            flushes.incrementAndGet();
            ctx.flush();
          }
        });
  }

  @Test
  void framesOfferedBetweenTwoTurns_costOneDrainAndOneFlush() {
    AtomicInteger flushes = new AtomicInteger();
    EmbeddedChannel ch = channel(flushes);
    CoalescingWriter writer = new CoalescingWriter(ch.eventLoop(), 100, () -> {});
    writer.attach(ch);
    for (int i = 0; i < 10; i++) {
      assertTrue(writer.offer(FRAME));
    }
    assertEquals(0, ch.outboundMessages().size(), "nothing written before the loop's turn");
    ch.runPendingTasks();
    assertEquals(10, ch.outboundMessages().size());
    assertEquals(1, flushes.get(), "one flush for the batch");
    assertEquals(0, writer.queuedFrames());
    ch.finishAndReleaseAll();
  }

  @Test
  void unwritableChannel_keepsFramesQueued_fullQueueRefuses_writableAgainDrainsAll() {
    AtomicInteger flushes = new AtomicInteger();
    EmbeddedChannel ch = channel(flushes);
    CoalescingWriter writer = new CoalescingWriter(ch.eventLoop(), 5, () -> {});
    writer.attach(ch);
    ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
    assertFalse(ch.isWritable());
    for (int i = 0; i < 5; i++) {
      assertTrue(writer.offer(FRAME));
    }
    assertFalse(writer.offer(FRAME), "a full queue refuses without blocking");
    ch.runPendingTasks();
    assertEquals(0, ch.outboundMessages().size(), "nothing written while unwritable");
    assertEquals(5, writer.queuedFrames());

    ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
    writer.drain(); // what channelWritabilityChanged does
    assertEquals(5, ch.outboundMessages().size());
    assertEquals(1, flushes.get());
    assertEquals(0, writer.queuedFrames());
    assertTrue(writer.offer(FRAME), "room again");
    ch.finishAndReleaseAll();
  }

  @Test
  void nativeEpoll_isUsed_whereAvailable() {
    try (TransportEventLoops loops = TransportEventLoops.create(1, true)) {
      assertEquals(Epoll.isAvailable(), loops.nativeEpoll());
    }
    try (TransportEventLoops loops = TransportEventLoops.create(1, false)) {
      assertFalse(loops.nativeEpoll(), "NIO when native is not preferred");
    }
  }
}
