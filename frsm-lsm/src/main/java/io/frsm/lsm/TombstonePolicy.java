package io.frsm.lsm;

import io.frsm.cell.Ballot;
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

  /**
   * Rules 1–2 only: cheap, checked for every cell a compaction writes. Rule 1 also admits a lone
   * purge mark — no accepted value, no promise: what a Purge resent after this replica already
   * dropped the key leaves (a blind merge of the mark). It holds nothing a dropped key would not;
   * kept, it stayed for good (DeleteReclaimIT saw one).
   */
  boolean isExpiredPurgedDelete(Cell cell) {
    if (cell.purge() == null || !(PurgeCompactions.purgedDelete(cell) || loneMark(cell))) {
      return false;
    }
    return wallClockMillis.getAsLong() - cell.purge().markTimeMs() >= gracePeriod.toMillis();
  }

  /** A purge mark with neither an accepted value nor a promise beside it. */
  static boolean loneMark(Cell cell) {
    return cell.purge() != null && cell.accepted() == null && Ballot.NONE.equals(cell.promised());
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
