package io.frsm.lsm;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Schedules the compactions that drop purged deletes (docs/OPERATIONS.md "Deletes and space", paper
 * appendix A.2): only a major compaction can drop a key for sure ({@link TombstonePolicy} rule 3:
 * no table outside the compaction may hold it), so one is started once the oldest purge mark this
 * engine knows of is past the grace period, at most once per {@code tombstoneCompactionInterval}. A
 * deleted key's space is thus reclaimed within grace + interval + one compaction of the mark
 * reaching this replica.
 *
 * <p>What it knows of: every purged delete a flush wrote into a table (a mark in a memtable cannot
 * be dropped before its flush: {@link TombstonePolicy} rule 3), every purge mark a flush wrote
 * without a value (a Purge that reached this replica after its delete was flushed: the purge
 * compaction merges the two), every one a compaction kept (still in grace, or a memtable or import
 * may hold the key), and — since neither survives a restart — the engine's start, if it opened with
 * tables: those may hold marks, so one purge compaction follows a grace period after the start.
 *
 * <p>Thread-safe: marks come from writers and compaction threads, {@link #maybeStart} from the
 * maintenance thread.
 */
final class PurgeCompactions {
  private static final long NONE = Long.MAX_VALUE;

  private final long graceMs;
  private final long intervalMs;
  private final Supplier<CompletableFuture<Void>> compactMajor;

  private long oldestMarkMs = NONE; // guarded by this
  private long lastStartMs = Long.MIN_VALUE; // guarded by this
  private boolean running; // guarded by this
  private long started; // guarded by this

  PurgeCompactions(long graceMs, long intervalMs, Supplier<CompletableFuture<Void>> compactMajor) {
    this.graceMs = graceMs;
    this.intervalMs = intervalMs;
    this.compactMajor = compactMajor;
  }

  /** Whether {@code cell} is a purged delete: a delete whose purge mark names that instance. */
  static boolean purgedDelete(Cell cell) {
    AcceptedValue a = cell.accepted();
    return a != null && a.isDelete() && cell.purge() != null && cell.purge().names(a);
  }

  /**
   * Whether a flush writing {@code cell} must count its mark: a purged delete, or a purge mark
   * alone (no accepted value). The latter is how a replica usually gets its mark: a Purge persists
   * the mark by itself (a blind merge), and once the delete it names was flushed before the purge
   * arrived, the two meet only when a compaction merges their tables. Not counting it left such a
   * replica's delete in place for good: no purge compaction was ever scheduled for it. A mark on a
   * newer value (the key was re-created) is not counted: it lets nothing be dropped. A mark alone
   * whose delete is already gone (a late resend) costs one purge compaction: compactions re-count
   * only the purged deletes they keep.
   */
  static boolean flushedMark(Cell cell) {
    return cell.purge() != null && (cell.accepted() == null || purgedDelete(cell));
  }

  /** A purge mark made at {@code markTimeMs} (wall clock) was written or kept. */
  synchronized void marked(long markTimeMs) {
    oldestMarkMs = Math.min(oldestMarkMs, markTimeMs);
  }

  /**
   * Starts a major compaction if the oldest known mark is past grace, none runs, and the last
   * started at least an interval ago. A failed one gives its marks back.
   */
  void maybeStart(long nowMs) {
    long taken;
    synchronized (this) {
      if (running
          || oldestMarkMs == NONE
          || nowMs - oldestMarkMs < graceMs
          || (lastStartMs != Long.MIN_VALUE && nowMs - lastStartMs < intervalMs)) {
        return;
      }
      taken = oldestMarkMs;
      oldestMarkMs = NONE; // the compaction marks again what it keeps
      running = true;
      lastStartMs = nowMs;
      started++;
    }
    CompletableFuture<Void> done;
    try {
      done = compactMajor.get();
    } catch (RuntimeException e) {
      ended(taken, e);
      throw e;
    }
    done.whenComplete((ok, error) -> ended(taken, error));
  }

  private synchronized void ended(long taken, Throwable error) {
    running = false;
    if (error != null) {
      oldestMarkMs = Math.min(oldestMarkMs, taken);
    }
  }

  /** Purge compactions started so far. */
  synchronized long started() {
    return started;
  }
}
