package io.frsm.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CellKindTest {
  private static final Key KEY = Key.of(new byte[] {'k'});
  private static final Ballot B = new Ballot(5, 1, 1);

  @Test
  void deleteNotYetPurged_isTheTombstoneThatMustBeKept() {
    Cell delete = Cell.accepted(KEY, AcceptedValue.delete(1, 3, B, true), 0);
    assertEquals(CellKind.DELETED_CELL_TOMBSTONED, delete.kind());
    assertFalse(delete.purgeScheduled());
    // A purge mark for an older instance does not name this delete.
    Cell olderMark = CellMerge.merge(delete, Cell.purge(KEY, new PurgeMark(1, 2, 10), 0));
    assertEquals(CellKind.DELETED_CELL_TOMBSTONED, olderMark.kind());
  }

  @Test
  void deleteNamedByItsPurgeMark_isScheduledForRemoval() {
    Cell purged =
        CellMerge.merge(
            Cell.accepted(KEY, AcceptedValue.delete(1, 3, B, true), 0),
            Cell.purge(KEY, new PurgeMark(1, 3, 10), 0));
    assertEquals(CellKind.DELETE_FOR_CELL, purged.kind());
    assertTrue(purged.purgeScheduled());
  }

  @Test
  void liveAndPromiseOnlyCells() {
    assertEquals(
        CellKind.LIVE,
        Cell.accepted(KEY, AcceptedValue.live(1, 0, B, new byte[0], true), 0).kind());
    assertNull(Cell.promise(KEY, B, 0).kind());
    assertThrows(
        IllegalArgumentException.class,
        () -> AcceptedValue.of(1, 0, B, CellKind.DELETED_CELL_TOMBSTONED, new byte[0], false));
  }
}
