package io.frsm.lsm.memtable;

import io.frsm.cell.Cell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A key's merged cell inside a {@link Memtable}, replaced by compare-and-set.
 *
 * <p>The memtable maps each key to its slot once and never removes it, so a merge into a present
 * key walks the skip list once (to find the slot) instead of twice ({@code putIfAbsent} and then
 * {@code replace}); the walk was the largest single cost of a write on a hot key. Slots are never
 * reused across keys, so a compare-and-set on one cannot suffer ABA from another key's cell.
 */
final class CellSlot {
  /** Estimated heap bytes of one slot (object header + one compressed reference, aligned). */
  static final long HEAP_BYTES = 16;

  private static final VarHandle CELL;

  static {
    try {
      CELL = MethodHandles.lookup().findVarHandle(CellSlot.class, "cell", Cell.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("unused") // accessed through CELL
  private volatile Cell cell;

  CellSlot(Cell cell) {
    this.cell = cell;
  }

  Cell cell() {
    return cell;
  }

  /** Replaces {@code expected} with {@code merged}; false if another writer got there first. */
  boolean compareAndSet(Cell expected, Cell merged) {
    return CELL.compareAndSet(this, expected, merged);
  }
}
