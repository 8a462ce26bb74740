package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.memtable.Memtable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The engine's writes: size limits, the stall while too many memtables wait for their flush ({@link
 * WriteStall}: writes wait, they do not fail), the admission to the active memtable ({@link
 * MemtableSwitch}), the merge once the commit log synced, and the flush a full memtable asks for.
 */
final class WritePath {
  // The engine's logger: operators configure the engine's log by that name.
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  private final LsmConfig config;
  private final EngineState state;
  private final MemtableSwitch memtables;
  private final FlushPipeline flushes;
  private final LsmMetrics metrics;
  private final WriteStall stall;

  WritePath(
      LsmConfig config,
      EngineState state,
      MemtableSwitch memtables,
      FlushPipeline flushes,
      LsmMetrics metrics) {
    this.config = config;
    this.state = state;
    this.memtables = memtables;
    this.flushes = flushes;
    this.metrics = metrics;
    this.stall =
        new WriteStall(flushes, config.maxFrozenMemtables(), config.dataDirectory().toString());
  }

  /** The stall that holds writes back while flushes lag. */
  WriteStall stall() {
    return stall;
  }

  /** Completes the future a write was given as its attachment. */
  private static final WriteCallback<CompletableFuture<Void>> COMPLETE =
      (future, failure) -> {
        if (failure == null) {
          future.complete(null);
        } else {
          future.completeExceptionally(failure);
        }
      };

  /** See {@link LsmEngine#write(Cell)}. */
  CompletableFuture<Void> write(Cell cell) {
    CompletableFuture<Void> written = new CompletableFuture<>();
    write(cell, written, COMPLETE);
    return written;
  }

  /** See {@link LsmEngine#write(Cell, Object, WriteCallback)}. */
  <A> void write(Cell cell, A attachment, WriteCallback<? super A> done) {
    checkSize(cell);
    LoggedWrite<A> write = new LoggedWrite<>(cell, attachment, done);
    if (stall.admitsNow()) {
      write.admit();
      write.proceed();
    } else {
      stall.write(write);
    }
  }

  /**
   * One logged write, from its admission to its report: learns its memtable under the switch lock,
   * then, once the commit log synced the record (or failed), merges the cell, releases the writer
   * and tells the caller. One object per write for all three steps. {@link #target} and {@link
   * #record} are set before {@link #proceed} hands this object to the record, and the record's
   * listener hand-off publishes them to the thread that calls {@link #synced}.
   */
  private final class LoggedWrite<A> extends WriteStall.Write
      implements Consumer<Memtable>, CommitLog.Synced {
    private final Cell cell;
    private final A attachment;
    private final WriteCallback<? super A> done;
    private Memtable target;
    private CommitLog.PendingRecord record;

    LoggedWrite(Cell cell, A attachment, WriteCallback<? super A> done) {
      this.cell = cell;
      this.attachment = attachment;
      this.done = done;
    }

    @Override
    void admit() {
      record = memtables.admitLogged(cell, this);
    }

    @Override
    public void accept(Memtable admittedTo) {
      target = admittedTo;
    }

    @Override
    void proceed() {
      record.whenSynced(this);
    }

    @Override
    void fail(RuntimeException cause) {
      report(done, attachment, cause);
    }

    @Override
    public void synced(Throwable error) {
      Throwable failure = error;
      try {
        if (error == null) {
          target.merge(cell);
        }
      } catch (Throwable t) {
        failure = t;
      } finally {
        target.releaseWriter();
      }
      if (error != null) {
        metrics.writesRejected.increment();
      } else if (failure == null) {
        maybeFlushForSize(target);
      }
      report(done, attachment, failure);
    }
  }

  /** See {@link LsmEngine#writeUnlogged(Cell)}. */
  CompletableFuture<Void> writeUnlogged(Cell cell) {
    CompletableFuture<Void> written = new CompletableFuture<>();
    writeUnlogged(cell, written, COMPLETE);
    return written;
  }

  /** See {@link LsmEngine#writeUnlogged(Cell, Object, WriteCallback)}. */
  <A> void writeUnlogged(Cell cell, A attachment, WriteCallback<? super A> done) {
    checkSize(cell);
    if (stall.admitsNow()) {
      writeUnloggedNow(cell);
      report(done, attachment, null);
    } else {
      stall.write(new UnloggedWrite<>(cell, attachment, done));
    }
  }

  /** An unlogged write the stall held back. */
  private final class UnloggedWrite<A> extends WriteStall.Write {
    private final Cell cell;
    private final A attachment;
    private final WriteCallback<? super A> done;

    UnloggedWrite(Cell cell, A attachment, WriteCallback<? super A> done) {
      this.cell = cell;
      this.attachment = attachment;
      this.done = done;
    }

    @Override
    void admit() {
      writeUnloggedNow(cell);
    }

    @Override
    void proceed() {
      report(done, attachment, null);
    }

    @Override
    void fail(RuntimeException cause) {
      report(done, attachment, cause);
    }
  }

  private void writeUnloggedNow(Cell cell) {
    Memtable target = memtables.admitUnlogged();
    try {
      target.merge(cell);
    } finally {
      target.releaseWriter();
    }
    metrics.unloggedWrites.increment();
    maybeFlushForSize(target);
  }

  /** Tells a writer how its write ended; what the callback throws must not reach our threads. */
  private static <A> void report(WriteCallback<? super A> done, A attachment, Throwable failure) {
    try {
      done.written(attachment, failure);
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.ERROR, "a write's callback failed", t);
    }
  }

  private void checkSize(Cell cell) {
    int keyBytes = cell.key().length();
    if (keyBytes > config.maxKeySizeBytes()) {
      throw new OversizedCellException(
          "key", keyBytes, config.maxKeySizeBytes(), "maxKeySizeBytes");
    }
    if (keyBytes == 0) {
      throw new IllegalArgumentException("empty key; nothing was written");
    }
    if (cell.accepted() != null) {
      int valueBytes = cell.accepted().valueUnsafe().length;
      if (valueBytes > config.maxValueSizeBytes()) {
        throw new OversizedCellException(
            "value", valueBytes, config.maxValueSizeBytes(), "maxValueSizeBytes");
      }
    }
  }

  private void maybeFlushForSize(Memtable m) {
    if (m.heapBytes() >= config.memtableFlushSizeBytes()
        && state.peek().active == m
        && memtables.claimSizeFlush()) {
      memtables.flushAsync(memtables.segregatedFlushes());
    }
  }
}
