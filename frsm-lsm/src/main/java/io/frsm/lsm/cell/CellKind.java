package io.frsm.lsm.cell;

/**
 * What a cell's accepted value is.
 *
 * <p>Only {@link #LIVE} and {@link #DELETE_FOR_CELL} are stored in an accepted value. {@link
 * #DELETED_CELL_TOMBSTONED} is the paper's name (appendix A.2) for a delete whose phase 1 finished
 * on every replica: a {@code DELETE_FOR_CELL} cell whose purge mark names its instance. It is
 * derived by {@link Cell#kind()}, never written, so the merge join stays a join.
 */
public enum CellKind {
  LIVE(0),
  DELETE_FOR_CELL(1),
  DELETED_CELL_TOMBSTONED(2);

  /** DO NOT CHANGE: written to disk in commit-log records and SSTables. */
  public final int code;

  CellKind(int code) {
    this.code = code;
  }

  /** Decodes a stored accepted kind; only LIVE and DELETE_FOR_CELL are ever stored. */
  public static CellKind ofStoredCode(int code) {
    return switch (code) {
      case 0 -> LIVE;
      case 1 -> DELETE_FOR_CELL;
      default -> throw new IllegalArgumentException("not a stored cell kind: " + code);
    };
  }
}
