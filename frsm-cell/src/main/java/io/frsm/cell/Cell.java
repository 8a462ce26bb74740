package io.frsm.cell;

import java.util.Objects;

/**
 * One key's consensus state as one replica stores it: the clock attribute (promised ballot,
 * accepted part, purge mark) and the accepted value. The unit of the commit log, the memtable and
 * SSTables; two cells of one key combine with {@link CellMerge#merge}.
 *
 * <p>A promise-only cell (written by a prepare) has {@code accepted == null}. {@code writeTimeMs}
 * is the local wall-clock time of the newest write merged into the cell (diagnostics; not part of
 * consensus).
 *
 * <p>Immutable.
 */
public final class Cell {
  private final Key key;
  private final Ballot promised;
  private final AcceptedValue accepted;
  private final PurgeMark purge;
  private final long writeTimeMs;

  public Cell(Key key, Ballot promised, AcceptedValue accepted, PurgeMark purge, long writeTimeMs) {
    this.key = Objects.requireNonNull(key, "key");
    this.promised = Objects.requireNonNull(promised, "promised");
    this.accepted = accepted;
    this.purge = purge;
    this.writeTimeMs = writeTimeMs;
  }

  public static Cell promise(Key key, Ballot promised, long writeTimeMs) {
    return new Cell(key, promised, null, null, writeTimeMs);
  }

  /** A cell that accepted {@code accepted}; its promise is the accepting ballot. */
  public static Cell accepted(Key key, AcceptedValue accepted, long writeTimeMs) {
    return new Cell(key, accepted.accepted(), accepted, null, writeTimeMs);
  }

  public static Cell purge(Key key, PurgeMark purge, long writeTimeMs) {
    return new Cell(key, Ballot.NONE, null, purge, writeTimeMs);
  }

  public Key key() {
    return key;
  }

  /** The highest ballot promised, as stored. See {@link #effectivePromise()}. */
  public Ballot promised() {
    return promised;
  }

  /** {@code max(promised, accepted ballot)}: what the acceptor rules compare against. */
  public Ballot effectivePromise() {
    return accepted == null ? promised : Ballot.max(promised, accepted.accepted());
  }

  /** The accepted part, or null (⊥) if this replica never accepted a value for the key. */
  public AcceptedValue accepted() {
    return accepted;
  }

  public PurgeMark purge() {
    return purge;
  }

  public long writeTimeMs() {
    return writeTimeMs;
  }

  /**
   * LIVE; or, for a delete, DELETED_CELL_TOMBSTONED while no purge mark names it (phase 1 not known
   * complete: keep it) and DELETE_FOR_CELL once one does (every replica holds it; scheduled for
   * removal). Null when nothing was accepted. See {@link CellKind}.
   */
  public CellKind kind() {
    if (accepted == null) {
      return null;
    }
    if (accepted.isDelete() && !purgeScheduled()) {
      return CellKind.DELETED_CELL_TOMBSTONED;
    }
    return accepted.kind();
  }

  /** The newest accepted value is a delete and the purge mark (phase 2) names it. */
  public boolean purgeScheduled() {
    return accepted != null && accepted.isDelete() && purge != null && purge.names(accepted);
  }

  /** Approximate heap bytes, for memtable accounting. */
  public long heapBytes() {
    return 96
        + key.length()
        + (accepted == null
            ? 0
            : 64 + accepted.valueUnsafe().length + (accepted.token() == null ? 0 : 32));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cell c
        && key.equals(c.key)
        && promised.equals(c.promised)
        && Objects.equals(accepted, c.accepted)
        && Objects.equals(purge, c.purge)
        && writeTimeMs == c.writeTimeMs;
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, promised, accepted, purge, writeTimeMs);
  }

  @Override
  public String toString() {
    return "Cell{"
        + key
        + " promised="
        + promised
        + " accepted="
        + (accepted == null ? "⊥" : accepted)
        + (purge == null ? "" : " purge=" + purge)
        + "}";
  }
}
