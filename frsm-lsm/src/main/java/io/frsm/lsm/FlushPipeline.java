package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.commitlog.CommitLogCheckpoint;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.memtable.Memtable;
import io.frsm.lsm.sstable.SSTableMetadata;
import io.frsm.lsm.sstable.SSTableOptions;
import io.frsm.lsm.sstable.SSTableWriter;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Turns frozen memtables into SSTables, strictly in freeze order, on one thread.
 *
 * <p>Order matters for the commit log: a memtable's checkpoint says which segments hold only its
 * records and older ones, so segments are discarded after a flush only when every older memtable is
 * published too — FIFO makes that automatic. A flush that fails (disk full, I/O error) keeps its
 * memtable frozen and readable and is retried with back-off; nothing is lost.
 */
final class FlushPipeline {
  private static final System.Logger LOG = System.getLogger(FlushPipeline.class.getName());
  static final long RETRY_DELAY_MS_MIN = 100;
  static final long RETRY_DELAY_MS_MAX = 10_000;

  /** A frozen memtable waiting for its flush. */
  record Pending(
      Memtable memtable,
      CommitLogCheckpoint checkpoint,
      boolean segregated,
      CompletableFuture<Void> published) {}

  private final FileSystem fs;
  private final EngineState state;
  private final CommitLog commitLog;
  private final SSTableOptions tableOptions;
  private final LsmMetrics metrics;
  private final ScheduledExecutorService executor;
  private final Runnable afterPublish;

  /**
   * Told the mark time of every purge mark a flush writes that may drop a key ({@link
   * PurgeCompactions#flushedMark}).
   */
  private final java.util.function.LongConsumer flushedPurgeMark;

  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private long retryDelayMs = RETRY_DELAY_MS_MIN;
  private boolean running;

  FlushPipeline(
      FileSystem fs,
      EngineState state,
      CommitLog commitLog,
      SSTableOptions tableOptions,
      LsmMetrics metrics,
      ScheduledExecutorService executor,
      Runnable afterPublish,
      java.util.function.LongConsumer flushedPurgeMark) {
    this.flushedPurgeMark = flushedPurgeMark;
    this.fs = fs;
    this.state = state;
    this.commitLog = commitLog;
    this.tableOptions = tableOptions;
    this.metrics = metrics;
    this.executor = executor;
    this.afterPublish = afterPublish;
  }

  void enqueue(Pending pending) {
    synchronized (queue) {
      queue.addLast(pending);
    }
    pending.memtable().drained().thenRun(this::kick);
  }

  /** The publish future of the newest queued flush, or null if none is queued. */
  CompletableFuture<Void> newestPending() {
    synchronized (queue) {
      Pending last = queue.peekLast();
      return last == null ? null : last.published();
    }
  }

  /** The publish future of the oldest queued flush, or null if none is queued. */
  CompletableFuture<Void> oldestPending() {
    synchronized (queue) {
      Pending first = queue.peekFirst();
      return first == null ? null : first.published();
    }
  }

  int queued() {
    synchronized (queue) {
      return queue.size();
    }
  }

  private void kick() {
    synchronized (queue) {
      if (running || queue.isEmpty() || executor.isShutdown()) {
        return;
      }
      running = true;
    }
    try {
      executor.execute(this::flushHead);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      synchronized (queue) {
        running = false;
      }
    }
  }

  private void flushHead() {
    Pending head;
    synchronized (queue) {
      head = queue.peekFirst();
    }
    if (head == null || !head.memtable().drained().isDone()) {
      synchronized (queue) {
        running = false;
      }
      return; // the drained callback kicks again
    }
    try {
      flush(head);
      synchronized (queue) {
        queue.removeFirst();
        running = false;
        retryDelayMs = RETRY_DELAY_MS_MIN;
      }
      head.published().complete(null);
      discardSegments(head.checkpoint());
      afterPublish.run();
      kick();
    } catch (IOException | RuntimeException e) {
      long delay;
      synchronized (queue) {
        delay = retryDelayMs;
        retryDelayMs = Math.min(RETRY_DELAY_MS_MAX, retryDelayMs * 2);
        running = false;
      }
      LOG.log(
          System.Logger.Level.ERROR,
          "flush of memtable " + head.memtable().id() + " failed; retrying in " + delay + " ms",
          e);
      if (!executor.isShutdown()) {
        executor.schedule(this::kick, delay, TimeUnit.MILLISECONDS);
      }
    }
  }

  private void discardSegments(CommitLogCheckpoint checkpoint) {
    try {
      commitLog.discardBefore(checkpoint);
    } catch (IOException e) {
      // Segments that stay are replayed again on restart: harmless (merge is idempotent).
      LOG.log(System.Logger.Level.WARNING, "could not discard flushed commit-log segments", e);
    }
  }

  private void flush(Pending p) throws IOException {
    Memtable m = p.memtable();
    if (m.isEmpty()) {
      state.publish(m, List.of(), List.of());
      return;
    }
    long startNanos = System.nanoTime();
    long generation = state.newGeneration();
    SSTableMetadata meta;
    try (SSTableWriter writer =
        SSTableWriter.create(fs, state.pathOf(generation), m.cellCount(), tableOptions)) {
      for (Iterator<Cell> it = m.iterator(null, null); it.hasNext(); ) {
        Cell cell = it.next();
        if (PurgeCompactions.flushedMark(cell)) {
          flushedPurgeMark.accept(cell.purge().markTimeMs());
        }
        writer.add(cell);
      }
      meta = writer.finish();
    }
    TableHandle handle = state.openHandle(EngineState.entryFor(generation, p.segregated(), meta));
    try {
      state.publish(m, List.of(), List.of(handle));
    } catch (IOException | RuntimeException e) {
      handle.release();
      fs.delete(handle.path());
      throw e;
    }
    metrics.flushBytes.increment(meta.fileSizeBytes());
    metrics.flushTime.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }
}
