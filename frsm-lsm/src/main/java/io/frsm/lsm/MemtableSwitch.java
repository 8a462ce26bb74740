package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.cell.MergeConflictListener;
import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.commitlog.CommitLogCheckpoint;
import io.frsm.lsm.memtable.Memtable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Which memtable takes writes, and the switch to a new one. One read-write lock orders the two:
 * writers are admitted (and their commit-log records appended) under its read lock, the switch
 * (commit-log rotation, new active memtable, flush queued) and the engine's close run under its
 * write lock. So a record always belongs to the segments of the memtable it is merged into, and no
 * writer is admitted once the engine is closed.
 */
final class MemtableSwitch {
  private final EngineState state;
  private final CommitLog commitLog;
  private final FlushPipeline flushes;
  private final LongSupplier wallClockMillis;
  private final MergeConflictListener conflicts;
  private final Executor maintenance;
  private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
  private final AtomicLong memtableIds = new AtomicLong();
  private final AtomicBoolean sizeFlushRequested = new AtomicBoolean();
  private volatile boolean segregatedFlushes;
  private volatile boolean closed;

  /**
   * @param maintenance the thread switches run on (never a commit-log thread, see {@link
   *     #flushAsync})
   * @param firstMemtableId the id of the first memtable this switch creates
   */
  MemtableSwitch(
      EngineState state,
      CommitLog commitLog,
      FlushPipeline flushes,
      LongSupplier wallClockMillis,
      MergeConflictListener conflicts,
      Executor maintenance,
      long firstMemtableId) {
    this.state = state;
    this.commitLog = commitLog;
    this.flushes = flushes;
    this.wallClockMillis = wallClockMillis;
    this.conflicts = conflicts;
    this.maintenance = maintenance;
    this.memtableIds.set(firstMemtableId);
  }

  /**
   * Admits a writer of an unlogged cell to the active memtable under the switch lock: the memtable.
   *
   * @throws IllegalStateException if the engine is closed
   */
  Memtable admitUnlogged() {
    switchLock.readLock().lock();
    try {
      return activeForWriter();
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /**
   * Admits a writer of {@code cell} to the active memtable and appends its commit-log record, both
   * under the switch lock (so the record belongs to that memtable's segments): hands the memtable
   * to {@code admitted} before the append, and returns the pending record. A consumer rather than a
   * returned pair: one object per logged write less (the write's completion takes the memtable).
   *
   * @throws IllegalStateException if the engine is closed
   */
  CommitLog.PendingRecord admitLogged(Cell cell, Consumer<Memtable> admitted) {
    switchLock.readLock().lock();
    try {
      admitted.accept(activeForWriter());
      return commitLog.appendPending(cell);
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /** Under the read lock: the active memtable, with one more writer admitted. */
  private Memtable activeForWriter() {
    if (closed) {
      throw new IllegalStateException("the LSM engine is closed");
    }
    Memtable target = state.peek().active;
    target.admitWriter();
    return target;
  }

  /** Whether flushed tables are segregated (see {@link LsmEngine#setSegregatedFlushes}). */
  boolean segregatedFlushes() {
    return segregatedFlushes;
  }

  void segregatedFlushes(boolean on) {
    segregatedFlushes = on;
  }

  /**
   * True for the first caller after a switch: that caller asks for the size-triggered flush, the
   * others see one is already on its way.
   */
  boolean claimSizeFlush() {
    return sizeFlushRequested.compareAndSet(false, true);
  }

  /**
   * Freezes the active memtable and queues its flush, on the maintenance thread: the switch waits
   * for the commit log to rotate, which must never happen on a commit-log thread (write futures
   * complete there).
   */
  CompletableFuture<Void> flushAsync(boolean segregated) {
    try {
      return CompletableFuture.supplyAsync(() -> switchMemtable(segregated), maintenance)
          .thenCompose(published -> published);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new IllegalStateException("the LSM engine is closed"));
    }
  }

  /**
   * Freezes the active memtable and queues its flush; returns the flush's publish future. If the
   * active memtable is empty, returns the future of the newest flush already queued (or a completed
   * one). REQUIRES: not called on a commit-log thread.
   */
  CompletableFuture<Void> switchMemtable(boolean segregated) {
    switchLock.writeLock().lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(
            new IllegalStateException("the LSM engine is closed"));
      }
      Memtable active = state.peek().active;
      if (active.isEmpty() && active.pendingWriters() == 0) {
        CompletableFuture<Void> newest = flushes.newestPending();
        return newest != null ? newest : CompletableFuture.completedFuture(null);
      }
      CommitLogCheckpoint checkpoint;
      try {
        checkpoint = commitLog.rotate();
      } catch (IOException e) {
        return CompletableFuture.failedFuture(e);
      }
      Memtable next =
          new Memtable(memtableIds.getAndIncrement(), wallClockMillis.getAsLong(), conflicts);
      Memtable frozen = state.switchMemtable(next);
      frozen.freeze();
      sizeFlushRequested.set(false);
      CompletableFuture<Void> published = new CompletableFuture<>();
      flushes.enqueue(new FlushPipeline.Pending(frozen, checkpoint, segregated, published));
      return published;
    } finally {
      switchLock.writeLock().unlock();
    }
  }

  /**
   * Admits no writer and makes no switch from now on (waits for the admissions and the switch in
   * progress). Returns false if the engine was closed already.
   */
  boolean close() {
    switchLock.writeLock().lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      return true;
    } finally {
      switchLock.writeLock().unlock();
    }
  }

  /** False once {@link #close()} began. */
  boolean isClosed() {
    return closed;
  }
}
