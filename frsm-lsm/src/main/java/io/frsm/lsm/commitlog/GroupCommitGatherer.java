package io.frsm.lsm.commitlog;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A stripe writer's group-commit scheduling: whether a drained chain waits out the group-commit
 * window ({@link CommitLogConfig#groupCommitWindow()}) for more records to join its sync, and the
 * wait itself. All but {@link #inWindow()} runs on the stripe's writer thread.
 */
final class GroupCommitGatherer {
  /**
   * A window pays only if records arrive while it is open: one that gathers nothing saves no sync
   * and only adds latency. In a closed loop with few writers that is the usual case (each writer
   * waits for the record the window holds back). So a window opens only while recent windows
   * gathered at least one record each on average; otherwise only every {@link #PROBE_EVERY}th
   * eligible drain opens one, to notice when the load changes. Measured with windows always open on
   * the paper workload (docs/BENCHMARKS.md): about 0.5 records gathered per window at one client,
   * 1.4 at four, 3 at sixty-four.
   */
  static final double PAYOFF_RECORDS = 1.0;

  static final int PROBE_EVERY = 16;

  private final GroupCommitWindow groupCommitWindow;
  private final WindowWait windowWait;
  private final StripeQueue queue;
  private final BooleanSupplier shutdownRequested;
  private final StripeMeters meters;

  /**
   * True while the writer waits out a group-commit window. An appender that pushes and then reads
   * true needs no wake-up: its push precedes (in the order of these volatile accesses) the writer's
   * reset to false, which precedes the writer's drain after the window.
   */
  private volatile boolean inWindow;

  // Writer thread: the records recent windows gathered (moving average, newest weighs 1/8), and
  // the eligible drains that skipped their window since the last one opened.
  private double gatheredAverage = PAYOFF_RECORDS;
  private int windowsSkipped;

  // Writer thread: the recent sync time (moving average, newest weighs 1/8; -1 before the first
  // sync), which an adaptive window follows.
  private long recentSyncNanos = -1;

  GroupCommitGatherer(
      GroupCommitWindow groupCommitWindow,
      WindowWait windowWait,
      StripeQueue queue,
      BooleanSupplier shutdownRequested,
      StripeMeters meters) {
    this.groupCommitWindow = groupCommitWindow;
    this.windowWait = windowWait;
    this.queue = queue;
    this.shutdownRequested = shutdownRequested;
    this.meters = meters;
  }

  /** Whether the writer waits out a window now (then an appender need not wake it). */
  boolean inWindow() {
    return inWindow;
  }

  /** Writer thread: one sync took {@code nanos}; an adaptive window follows the average. */
  void synced(long nanos) {
    recentSyncNanos = recentSyncNanos < 0 ? nanos : recentSyncNanos + (nanos - recentSyncNanos) / 8;
  }

  /**
   * With a group-commit window, a drained chain holding two or more records waits out the window
   * and appends what was queued meanwhile to its end, for the same group commit.
   */
  void gatherDuringWindow(StripeRequest<?> chain) {
    if (groupCommitWindow.isOff() || shutdownRequested.getAsBoolean()) {
      return;
    }
    if (records(chain) < 2) {
      return; // no sign of concurrent writers: a lone record does not wait
    }
    long windowNanos = groupCommitWindow.nanos(recentSyncNanos);
    if (windowNanos == 0) {
      return;
    }
    if (gatheredAverage < PAYOFF_RECORDS && ++windowsSkipped < PROBE_EVERY) {
      return;
    }
    windowsSkipped = 0;
    long start = System.nanoTime();
    inWindow = true;
    try {
      windowWait.until(windowNanos, shutdownRequested);
    } finally {
      inWindow = false;
    }
    StripeRequest<?> gathered = queue.drain();
    StripeRequest<?> tail = chain;
    while (tail.next != null) {
      tail = tail.next;
    }
    tail.next = gathered; // newer than everything in the chain: FIFO order holds
    meters.windowTime.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    int gatheredRecords = records(gathered);
    meters.gatheredRecords.record(gatheredRecords);
    gatheredAverage += (gatheredRecords - gatheredAverage) / 8;
  }

  /** The records (not barriers or rotations) of a drained chain. */
  private static int records(StripeRequest<?> chain) {
    int records = 0;
    for (StripeRequest<?> r = chain; r != null; r = r.next) {
      if (r instanceof StripeRequest.Append a && !a.isBarrier()) {
        records++;
      }
    }
    return records;
  }

  /** How the writer waits out a group-commit window; a test substitutes one it controls. */
  interface WindowWait {
    /**
     * Returns once {@code windowNanos} have passed since the call, or earlier once {@code stop}
     * holds (the stripe is shutting down).
     */
    void until(long windowNanos, BooleanSupplier stop);

    /** Parks the writer; a wake-up before the deadline (a stale unpark permit) parks again. */
    WindowWait PARK =
        (windowNanos, stop) -> {
          long deadlineNanos = System.nanoTime() + windowNanos;
          long left;
          while (!stop.getAsBoolean() && (left = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
          }
        };
  }
}
