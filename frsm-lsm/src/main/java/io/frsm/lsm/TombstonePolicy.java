package io.frsm.lsm;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.memtable.Memtable;
import java.time.Duration;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Decides whether compaction may drop a key entirely — the only way state ever leaves the LSM
 * (docs/DESIGN.md "Delete", paper appendix A.2). All of these must hold:
 *
 * <ol>
 *   <li>the key's newest accepted value is a delete and its purge mark names that instance (phase 2
 *       of delete: every replica durably acked the delete);
 *   <li>the purge mark is older than the grace period (24 h default: far above clock skew, the
 *       bounded delay T and the longest import);
 *   <li>no memtable and no table outside the compaction may hold a cell of the key — such a cell
 *       would resurface once the delete is gone (checked through bloom filters and token ranges; a
 *       false positive only keeps the tombstone a little longer);
 *   <li>no import is running over the key's token range.
 * </ol>
 */
final class TombstonePolicy {
  private final Duration gracePeriod;
  private final LongSupplier wallClockMillis;
  private final ImportRanges importing;

  TombstonePolicy(Duration gracePeriod, LongSupplier wallClockMillis, ImportRanges importing) {
    this.gracePeriod = gracePeriod;
    this.wallClockMillis = wallClockMillis;
    this.importing = importing;
  }

  /** Rules 1–2 only: cheap, checked for every cell a compaction writes. */
  boolean isExpiredPurgedDelete(Cell cell) {
    AcceptedValue a = cell.accepted();
    if (a == null || !a.isDelete() || cell.purge() == null || !cell.purge().names(a)) {
      return false;
    }
    return wallClockMillis.getAsLong() - cell.purge().markTimeMs() >= gracePeriod.toMillis();
  }

  /** Rules 3–4 against the current view. REQUIRES: {@code view} retained by the caller. */
  boolean nothingOutsideMayHold(Key key, EngineView view, Set<Long> compacting) {
    if (importing.overlaps(key.token())) {
      return false;
    }
    if (view.active.get(key) != null) {
      return false;
    }
    for (Memtable m : view.frozen) {
      if (m.get(key) != null) {
        return false;
      }
    }
    for (TableHandle t : view.tables) {
      if (!compacting.contains(t.entry().generation())
          && t.entry().coversToken(key.token())
          && t.reader().mightContain(key)) {
        return false;
      }
    }
    for (QuarantinedTable q : view.quarantined) {
      if (q.mayHold(key)) {
        return false;
      }
    }
    return true;
  }
}
