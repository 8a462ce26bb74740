package io.frsm.client.transport;

import com.google.protobuf.MessageLite;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes frames offered from any thread onto one channel with one flush per batch.
 *
 * <p>{@link #offer} appends to a queue and, unless a drain is already pending, schedules one drain
 * task on the connection's event loop. The drain writes everything queued (while the channel is
 * writable) and flushes once. So frames offered between two event-loop turns — a burst of sends
 * from the node, or every reply produced while a read batch is handled — cost one task and one
 * {@code writev} instead of one each (LIMITS.md: ~7× the message rate of a flush per message).
 *
 * <p>Backpressure: while the channel is unwritable (its outbound buffer is above the high water
 * mark) or not connected, frames stay queued; at {@code maxQueued} frames {@link #offer} returns
 * false at once, so a slow or absent peer costs bounded memory and the caller learns it without
 * blocking. The drain resumes when the channel becomes writable again ({@link
 * #writabilityChanged}).
 *
 * <p>Thread-safety: {@link #offer} from any thread; everything else on {@link #loop} only.
 */
public final class CoalescingWriter {
  private final EventLoop loop;
  private final int maxQueued;
  private final Runnable whenDisconnected;
  private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drainScheduled;
  private Channel channel;

  /**
   * @param whenDisconnected run on the loop when a drain finds no channel (a reconnecting
   *     connection dials from there)
   */
  public CoalescingWriter(EventLoop loop, int maxQueued, Runnable whenDisconnected) {
    this.loop = loop;
    this.maxQueued = maxQueued;
    this.whenDisconnected = whenDisconnected;
  }

  public EventLoop loop() {
    return loop;
  }

  /**
   * Queues a {@link MessageLite} envelope or a {@link TrackedFrame}; false if the queue is full.
   */
  public boolean offer(Object frame) {
    assert frame instanceof MessageLite || frame instanceof TrackedFrame : frame;
    if (queued.incrementAndGet() > maxQueued) {
      queued.decrementAndGet();
      return false;
    }
    queue.add(frame);
    if (drainScheduled.compareAndSet(false, true)) {
      loop.execute(drainTask);
    }
    return true;
  }

  public int queuedFrames() {
    return queued.get();
  }

  private void drainScheduled() {
    // Reset before polling: a frame offered after this point schedules its own drain, and one
    // offered before it is seen by the loop below.
    drainScheduled.set(false);
    drain();
  }

  /** Writes what is queued while the channel is writable, then flushes once. */
  public void drain() {
    assert loop.inEventLoop();
    Channel ch = channel;
    if (ch == null || !ch.isActive()) {
      if (!queue.isEmpty()) {
        whenDisconnected.run();
      }
      return;
    }
    boolean wrote = false;
    while (ch.isWritable()) {
      Object frame = queue.poll();
      if (frame == null) {
        break;
      }
      queued.decrementAndGet();
      if (frame instanceof TrackedFrame tracked) {
        if (!tracked.beforeWrite(ch)) {
          continue;
        }
        frame = tracked.envelope();
      }
      // Write errors close the channel (exceptionCaught); a tracked frame learns it from there.
      ch.write(frame, ch.voidPromise());
      wrote = true;
    }
    if (wrote) {
      ch.flush();
    }
  }

  /**
   * For a connection's {@code channelWritabilityChanged}: resumes the drain once the channel is
   * writable again (its outbound buffer fell below the low water mark), and passes the event on.
   */
  public void writabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      drain();
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** Starts writing to {@code ch} (connected). */
  public void attach(Channel ch) {
    assert loop.inEventLoop() && ch.eventLoop() == loop;
    channel = ch;
    drain();
  }

  /** The channel closed: keep the queue for the next one. */
  public void detach() {
    assert loop.inEventLoop();
    channel = null;
  }

  /**
   * Drops everything queued (the peer is unreachable, or the connection is closing); returns how
   * many frames.
   */
  public int discardQueued(String reason) {
    assert loop.inEventLoop();
    int discarded = 0;
    Object frame;
    while ((frame = queue.poll()) != null) {
      queued.decrementAndGet();
      discarded++;
      if (frame instanceof TrackedFrame tracked) {
        tracked.discarded(reason);
      }
    }
    return discarded;
  }
}
