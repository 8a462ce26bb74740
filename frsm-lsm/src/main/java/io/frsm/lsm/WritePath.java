package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.lsm.memtable.Memtable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The engine's writes: size limits, the stall while too many memtables wait for their flush ({@link
 * WriteStall}: writes wait, they do not fail), the admission to the active memtable ({@link
 * MemtableSwitch}), the merge once the commit log synced, and the flush a full memtable asks for.
 */
final class WritePath {
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
        new WriteStall(
            flushes,
            config.maxFrozenMemtables(),
            (cell, logged) -> logged ? writeNow(cell) : writeUnloggedNow(cell));
  }

  /** The stall that holds writes back while flushes lag. */
  WriteStall stall() {
    return stall;
  }

  /** See {@link LsmEngine#write(Cell)}. */
  CompletableFuture<Void> write(Cell cell) {
    checkSize(cell);
    return stall.write(cell, true);
  }

  private CompletableFuture<Void> writeNow(Cell cell) {
    LoggedWrite write = new LoggedWrite(cell);
    return memtables.admitLogged(cell, write).handle(write);
  }

  /**
   * One logged write, from its admission to its merge: learns its memtable under the switch lock,
   * then, once the commit log synced the record (or failed), merges the cell and releases the
   * writer. One object per write for both steps. {@link #target} is set before the record's future
   * is handed this object, so the thread that completes the future sees it.
   */
  private final class LoggedWrite implements Consumer<Memtable>, BiFunction<Void, Throwable, Void> {
    private final Cell cell;
    private Memtable target;

    LoggedWrite(Cell cell) {
      this.cell = cell;
    }

    @Override
    public void accept(Memtable admittedTo) {
      target = admittedTo;
    }

    @Override
    public Void apply(Void ok, Throwable error) {
      try {
        if (error == null) {
          target.merge(cell);
        }
      } finally {
        target.releaseWriter();
      }
      if (error != null) {
        metrics.writesRejected.increment();
        throw error instanceof CompletionException c ? c : new CompletionException(error);
      }
      maybeFlushForSize(target);
      return null;
    }
  }

  /** See {@link LsmEngine#writeUnlogged(Cell)}. */
  CompletableFuture<Void> writeUnlogged(Cell cell) {
    checkSize(cell);
    return stall.write(cell, false);
  }

  private CompletableFuture<Void> writeUnloggedNow(Cell cell) {
    Memtable target = memtables.admitUnlogged();
    try {
      target.merge(cell);
    } finally {
      target.releaseWriter();
    }
    metrics.unloggedWrites.increment();
    maybeFlushForSize(target);
    return CompletableFuture.completedFuture(null);
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
