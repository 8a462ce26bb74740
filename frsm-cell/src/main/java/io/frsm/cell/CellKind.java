package io.frsm.cell;

/**
 * What a cell's accepted value is.
 *
 * <p>Only {@link #LIVE} and {@link #DELETE_FOR_CELL} are stored in an accepted value. The paper
 * (appendix A.2) names the state of a delete that a quorum accepted but that is not known to be on
 * every replica {@code DeletedCellTombstoned}: the replicas must keep it until the deletion
 * completes. A replica knows phase 1 completed only through the purge mark (phase 2), so {@link
 * Cell#kind()} derives: a delete whose purge mark does not name it is {@link
 * #DELETED_CELL_TOMBSTONED} (kept); a delete named by its purge mark is {@link #DELETE_FOR_CELL}
 * scheduled for removal ({@link Cell#purgeScheduled()}; compaction drops it after the grace
 * period). Derived, never written, so the merge join stays a join.
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
