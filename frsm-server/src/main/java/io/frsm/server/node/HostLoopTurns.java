package io.frsm.server.node;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The turns a {@link CoreDriver} takes on a transport event loop when its core runs there ({@code
 * coreOnTransportLoop}) rather than on a thread of its own: a drain task, queued at most once at a
 * time and again whenever inputs are left, and the tick at a fixed rate. The loop runs its tasks
 * one at a time, so drain and tick never overlap, and the core's state needs no lock.
 */
final class HostLoopTurns {
  private final EventExecutor loop;

  /** Steps queued inputs, up to one turn's worth; what it throws is fatal. */
  private final Runnable drain;

  /** Every tick interval; handles its own failures. */
  private final Runnable tick;

  /** Whether the driver still runs and inputs wait in its queue. */
  private final BooleanSupplier inputsLeft;

  private final Consumer<Throwable> fatal;

  /** A drain task is queued or running (at most one is queued at a time). */
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  /** Set once started, so no input is stepped before {@link #start}. */
  private volatile boolean started;

  private volatile ScheduledFuture<?> ticker;

  HostLoopTurns(
      EventExecutor loop,
      Runnable drain,
      Runnable tick,
      BooleanSupplier inputsLeft,
      Consumer<Throwable> fatal) {
    this.loop = loop;
    this.drain = drain;
    this.tick = tick;
    this.inputsLeft = inputsLeft;
    this.fatal = fatal;
  }

  void start(long tickNanos) {
    started = true;
    ticker = loop.scheduleAtFixedRate(tick, 0, tickNanos, TimeUnit.NANOSECONDS);
    scheduleDrain(); // inputs that arrived before the start
  }

  /**
   * Queues a drain on the host loop unless one is queued already. From the loop itself this adds a
   * task and wakes nobody; from another thread it wakes the loop, as a queue hand-off would.
   */
  void scheduleDrain() {
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        loop.execute(this::drainOnLoop);
      } catch (RejectedExecutionException loopsStopped) {
        drainScheduled.set(false); // the node is closing: stop() fails what is still queued
      }
    }
  }

  /** On the host loop: steps up to one turn's worth of queued inputs, then yields. */
  private void drainOnLoop() {
    try {
      if (started) {
        drain.run();
      }
    } catch (RuntimeException | Error e) {
      fatal.accept(e);
    } finally {
      drainScheduled.set(false);
    }
    // An input queued after the last poll found the flag still set: look again.
    if (started && inputsLeft.getAsBoolean()) {
      scheduleDrain();
    }
  }

  /**
   * Once the driver no longer runs: cancels the tick and waits until a drain or tick already
   * running has finished (the loop runs tasks one at a time; later ones see the driver stopped and
   * do nothing), so the loop's state is this thread's from then on.
   */
  void awaitTurn() {
    ScheduledFuture<?> t = ticker;
    if (t != null) {
      t.cancel(false);
    }
    // From the loop itself (a fatal error) nothing else runs meanwhile: no need to wait.
    if (!loop.inEventLoop()) {
      try {
        loop.submit(() -> {}).await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RejectedExecutionException loopsStopped) {
        // The loop ended: nothing of the core runs any more.
      }
    }
  }
}
