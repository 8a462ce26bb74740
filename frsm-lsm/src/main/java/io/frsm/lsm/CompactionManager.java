package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.lsm.compaction.RateLimiter;
import io.frsm.lsm.compaction.SizeTieredPlanner;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.SSTableMetadata;
import io.frsm.lsm.sstable.SSTableOptions;
import io.frsm.lsm.sstable.SSTableWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Minor (size-tiered) and major compactions on {@code number_of_compaction_threads} threads, all
 * sharing one {@code compaction_throughput_limit} rate limiter. Merges its input tables with the
 * merge join into one new table, drops keys only as {@link TombstonePolicy} allows, and publishes
 * the swap in one manifest write. Segregated and quarantined tables are never inputs.
 */
final class CompactionManager {
  private static final System.Logger LOG = System.getLogger(CompactionManager.class.getName());

  private final FileSystem fs;
  private final EngineState state;
  private final SizeTieredPlanner planner;
  private final RateLimiter rateLimiter;
  private final TombstonePolicy tombstones;
  private final SSTableOptions tableOptions;
  private final LsmMetrics metrics;
  private final ExecutorService executor;

  /** Told the mark time of every purged delete a compaction keeps ({@link PurgeCompactions}). */
  private final java.util.function.LongConsumer keptPurgeMark;

  /** Tables reserved by a running compaction, with that compaction's completion. */
  private final Map<Long, CompletableFuture<Void>> compacting = new HashMap<>();

  CompactionManager(
      FileSystem fs,
      EngineState state,
      SizeTieredPlanner planner,
      RateLimiter rateLimiter,
      TombstonePolicy tombstones,
      SSTableOptions tableOptions,
      LsmMetrics metrics,
      ExecutorService executor,
      java.util.function.LongConsumer keptPurgeMark) {
    this.keptPurgeMark = keptPurgeMark;
    this.fs = fs;
    this.state = state;
    this.planner = planner;
    this.rateLimiter = rateLimiter;
    this.tombstones = tombstones;
    this.tableOptions = tableOptions;
    this.metrics = metrics;
    this.executor = executor;
  }

  /** Starts a minor compaction if one is due. Never blocks. */
  void maybeScheduleMinor() {
    List<TableEntry> inputs;
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (compacting) {
      inputs = planner.plan(compactable(), compacting.keySet());
      if (inputs.isEmpty()) {
        return;
      }
      reserve(inputs, done);
    }
    submit(inputs, done);
  }

  /**
   * Compacts every table that is not segregated or quarantined into one. Compactions already
   * running finish first; then all tables go into one.
   */
  CompletableFuture<Void> compactMajor() {
    List<TableEntry> inputs = compactable();
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (compacting) {
      List<CompletableFuture<Void>> running = new ArrayList<>();
      for (TableEntry t : inputs) {
        CompletableFuture<Void> f = compacting.get(t.generation());
        if (f != null) {
          running.add(f);
        }
      }
      if (!running.isEmpty()) {
        return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new))
            .handle((ok, error) -> null)
            .thenCompose(ignored -> compactMajor());
      }
      // One table still deserves a major compaction: it may hold expired tombstones.
      if (inputs.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      reserve(inputs, done);
    }
    submit(inputs, done);
    return done;
  }

  private List<TableEntry> compactable() {
    List<TableEntry> out = new ArrayList<>();
    for (TableEntry t : state.liveEntries()) {
      // A table with quarantined blocks cannot be read whole; merging its readable part would
      // also lose the fence over the damaged one. It waits for its release.
      if (!t.segregated() && !t.quarantined() && !t.hasQuarantinedBlocks()) {
        out.add(t);
      }
    }
    return out;
  }

  private void reserve(List<TableEntry> inputs, CompletableFuture<Void> done) {
    for (TableEntry t : inputs) {
      compacting.put(t.generation(), done);
    }
  }

  private void unreserve(List<TableEntry> inputs) {
    synchronized (compacting) {
      for (TableEntry t : inputs) {
        compacting.remove(t.generation());
      }
    }
  }

  private void submit(List<TableEntry> inputs, CompletableFuture<Void> done) {
    try {
      executor.execute(
          () -> {
            try {
              compact(inputs);
              done.complete(null);
            } catch (CorruptionException e) {
              LOG.log(
                  System.Logger.Level.ERROR, "compaction of " + inputs + " found corruption", e);
              quarantineSource(e);
              done.completeExceptionally(e);
            } catch (IOException | RuntimeException e) {
              LOG.log(System.Logger.Level.ERROR, "compaction of " + inputs + " failed", e);
              done.completeExceptionally(e);
            } finally {
              unreserve(inputs);
            }
            maybeScheduleMinor();
          });
    } catch (RejectedExecutionException e) {
      unreserve(inputs);
      done.completeExceptionally(e);
    }
  }

  private void compact(List<TableEntry> inputs) throws IOException {
    long startNanos = System.nanoTime();
    Set<Long> inputGenerations = new HashSet<>();
    long expectedKeys = 0;
    long bytesIn = 0;
    for (TableEntry t : inputs) {
      inputGenerations.add(t.generation());
      expectedKeys += t.cellCount();
      bytesIn += t.fileSizeBytes();
    }
    EngineView view = state.acquire();
    try {
      List<CellIterator> sources = new ArrayList<>();
      for (TableHandle h : view.tables) {
        if (inputGenerations.contains(h.entry().generation())) {
          sources.add(h.reader().iterator(null, null));
        }
      }
      if (sources.size() != inputs.size()) {
        throw new IllegalStateException("compaction inputs are no longer live: " + inputs);
      }
      long generation = state.newGeneration();
      SSTableMetadata meta = null;
      long purged = 0;
      try (MergingCellIterator merged =
              new MergingCellIterator(
                  sources, (k, a, b) -> metrics.mergeConflicts.increment(), () -> {});
          SSTableWriter writer =
              SSTableWriter.create(fs, state.pathOf(generation), expectedKeys, tableOptions)) {
        long written = 0;
        long cells = 0;
        while (merged.hasNext()) {
          Cell cell = merged.next();
          if (tombstones.isExpiredPurgedDelete(cell) && mayDrop(cell, inputGenerations)) {
            purged++;
            continue;
          }
          if (PurgeCompactions.purgedDelete(cell) || TombstonePolicy.loneMark(cell)) {
            keptPurgeMark.accept(cell.purge().markTimeMs()); // dropped by a later compaction
          }
          writer.add(cell);
          cells++;
          long now = writer.bytesWritten();
          rateLimiter.acquire(now - written);
          written = now;
        }
        if (cells > 0) {
          meta = writer.finish();
        }
      }
      List<TableHandle> added = new ArrayList<>();
      if (meta != null) {
        added.add(state.openHandle(EngineState.entryFor(generation, false, meta)));
      }
      state.publish(null, inputGenerations, added);
      metrics.tombstonesPurged.increment(purged);
      metrics.compactionBytesRead.increment(bytesIn);
      metrics.compactionBytesWritten.increment(meta == null ? 0 : meta.fileSizeBytes());
      metrics.compactionTime.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    } finally {
      view.release();
    }
  }

  private void quarantineSource(CorruptionException e) {
    EngineView view = state.acquire();
    try {
      for (TableHandle h : view.tables) {
        if (h.path().equals(e.file())) {
          state.quarantine(h, e);
        }
      }
    } finally {
      view.release();
    }
  }

  private boolean mayDrop(Cell cell, Set<Long> inputGenerations) {
    EngineView current = state.acquire();
    try {
      return tombstones.nothingOutsideMayHold(cell.key(), current, inputGenerations);
    } finally {
      current.release();
    }
  }
}
