package io.frsm.lsm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Holds writes back while {@code lsm.maxFrozenMemtables} memtables wait for their flush, and lets
 * them in, oldest first, as flushes publish (docs/OPERATIONS.md "Failure handling", **Slow disk**).
 *
 * <p>Why wait rather than fail: a failed write is, to the consensus layer, a persist whose outcome
 * is unknown — the node can no longer vouch for its own promises and stops (the failure policy). A
 * disk that is only slow (flushes behind a burst) or briefly failing (flushes retried with
 * back-off) must not stop a node, so a write that finds the flush queue full waits for room
 * instead, and completes when it is durable, as any write does. Memory stays bounded because the
 * server stops the inflow while the engine is stalled ({@link LsmEngine#writesStalled}: the node
 * refuses the writes it would coordinate and its acceptor stays silent), so what waits here is only
 * what was already on its way.
 *
 * <p>Order: once one write waits, every later write waits behind it, and the waiting ones are let
 * in under this object's lock in arrival order, so a caller's writes reach the commit log in the
 * order it issued them, stalled or not. Thread-safe.
 */
final class WriteStall {
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());
  private static final long WARNING_EVERY_NANOS = 60_000_000_000L;

  /** A write this stall may hold back: admitted under its lock, reported outside it. */
  abstract static class Write {
    /**
     * Admits the write to the active memtable (a logged one also to the commit log). May run under
     * this stall's lock, so it must not call back the writer.
     *
     * @throws IllegalStateException if the engine is closed
     */
    abstract void admit();

    /** After {@link #admit}, outside every lock: reports the write's end, now or when it comes. */
    abstract void proceed();

    /** The write was never admitted ({@code cause}); outside every lock. */
    abstract void fail(RuntimeException cause);
  }

  private final FlushPipeline flushes;
  private final int maxFrozenMemtables;
  private final String where;

  private final ArrayDeque<Write> waiting = new ArrayDeque<>(); // guarded by this
  private boolean watching; // guarded by this: a flush's publish will let writes in
  private boolean closed; // guarded by this
  private long stallStartNanos; // guarded by this
  private long lastWarningNanos; // guarded by this
  private boolean warned; // guarded by this: this stall's start was logged at WARNING

  /** True from the first write held back until the last one is let in: the fast path's check. */
  private volatile boolean holding;

  private final AtomicLong stalls = new AtomicLong();
  private final AtomicLong heldBack = new AtomicLong();

  WriteStall(FlushPipeline flushes, int maxFrozenMemtables) {
    this(flushes, maxFrozenMemtables, "");
  }

  /**
   * @param where names the engine in log lines (its data directory), so that one of several in a
   *     process can be told apart; "" for none
   */
  WriteStall(FlushPipeline flushes, int maxFrozenMemtables, String where) {
    if (maxFrozenMemtables < 1) {
      throw new IllegalArgumentException("maxFrozenMemtables must be at least 1");
    }
    this.flushes = flushes;
    this.maxFrozenMemtables = maxFrozenMemtables;
    this.where = where.isEmpty() ? "" : " (" + where + ")";
  }

  /**
   * The fast path's check, without the lock: true if a write may be admitted now (no write waits
   * and the flush queue has room); otherwise hand it to {@link #write}.
   */
  boolean admitsNow() {
    return !holding && room();
  }

  /**
   * Admits {@code write} now, or — while the flush queue is full or other writes wait — once a
   * flush made room and every write before it was let in.
   *
   * @throws IllegalStateException if the engine is closed (the write is neither admitted nor
   *     reported)
   */
  void write(Write write) {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the LSM engine is closed");
      }
      if (!waiting.isEmpty() || !room()) {
        holdBack(write);
        return;
      }
      write.admit();
    }
    write.proceed();
  }

  /** REQUIRES: holding this lock. */
  private void holdBack(Write write) {
    waiting.addLast(write);
    heldBack.incrementAndGet();
    if (!holding) {
      holding = true;
      stallStartNanos = System.nanoTime();
      stalls.incrementAndGet();
      // One WARNING a minute at most: a disk that lags under a steady load stalls at every flush.
      warned = stalls.get() == 1 || stallStartNanos - lastWarningNanos > WARNING_EVERY_NANOS;
      if (warned) {
        lastWarningNanos = stallStartNanos;
      }
      LOG.log(
          warned ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
          "writes held back"
              + where
              + ": "
              + flushes.queued()
              + " memtables are waiting for their flush (lsm.maxFrozenMemtables); the disk"
              + " does not keep up (or flushes fail: see their errors). They go on as flushes"
              + " finish (frsm.lsm.write.stalls counts every time; logged once a minute)");
    }
    watchNextPublish();
  }

  /** Whether the engine holds writes back now (or would hold back the next one). */
  boolean stalled() {
    return holding || !room();
  }

  /** Writes held back now. */
  synchronized int waiting() {
    return waiting.size();
  }

  /** Times writes began to be held back. */
  long stalls() {
    return stalls.get();
  }

  /** Writes that were held back, in all. */
  long heldBack() {
    return heldBack.get();
  }

  /** Fails every write still held back: the engine stops, so none can be made durable. */
  void close() {
    ArrayDeque<Write> failed;
    synchronized (this) {
      closed = true;
      failed = new ArrayDeque<>(waiting);
      waiting.clear();
      holding = false;
    }
    for (Write w : failed) {
      w.fail(new IllegalStateException("the LSM engine is closed"));
    }
  }

  private boolean room() {
    return flushes.queued() < maxFrozenMemtables;
  }

  /** REQUIRES: holding this lock. Lets writes in when the oldest queued flush publishes. */
  private void watchNextPublish() {
    if (watching) {
      return;
    }
    watching = true;
    CompletableFuture<Void> oldest = flushes.oldestPending();
    if (oldest == null) {
      oldest = CompletableFuture.completedFuture(null);
    }
    // A flush's future completes only when it published (a failing flush is retried until then);
    // whatever ends it, look again.
    oldest.whenComplete((ok, error) -> letIn());
  }

  /**
   * Lets held-back writes in, oldest first, while the flush queue has room. Admission runs under
   * the lock (arrival order); the writes are reported after it is released, so none of the writers'
   * callbacks runs under it.
   */
  private void letIn() {
    List<Write> admitted = new ArrayList<>();
    List<RuntimeException> refused = new ArrayList<>(); // per admitted write, null if it went in
    synchronized (this) {
      watching = false;
      while (!waiting.isEmpty() && !closed) {
        if (!room()) {
          watchNextPublish();
          break;
        }
        Write w = waiting.pollFirst();
        RuntimeException refusal = null;
        try {
          w.admit();
        } catch (RuntimeException e) { // the engine closed meanwhile
          refusal = e;
        }
        admitted.add(w);
        refused.add(refusal);
      }
      if (waiting.isEmpty() && holding) {
        holding = false;
        LOG.log(
            warned ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
            "writes go on"
                + where
                + ": the flushes made room after "
                + (System.nanoTime() - stallStartNanos) / 1_000_000
                + " ms");
      }
    }
    for (int i = 0; i < admitted.size(); i++) {
      if (refused.get(i) == null) {
        admitted.get(i).proceed();
      } else {
        admitted.get(i).fail(refused.get(i));
      }
    }
  }
}
