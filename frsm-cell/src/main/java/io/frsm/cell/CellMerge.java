package io.frsm.cell;

import java.util.Arrays;

/**
 * The merge join of two cells of one key (docs/DESIGN.md "Merge is a join").
 *
 * <ul>
 *   <li>{@code promised} = max.
 *   <li>accepted part = the larger by {@code (epoch, timestamp, accepted)}, ⊥ lowest; its {@code
 *       chosen} = OR over the inputs at the same {@code (epoch, timestamp)}: a value chosen at an
 *       instance equals every value accepted there under a higher ballot.
 *   <li>{@code purge} = max; {@code writeTimeMs} = max.
 * </ul>
 *
 * Commutative, associative and idempotent (property-tested in {@code CellMergePropertiesTest}), so
 * commit-log replay across stripes, memtable updates and compaction need no ordering between
 * records. Equal triples with different bytes or kind are impossible in a correct system: the
 * listener is told, and the larger (kind, unsigned bytes) is kept so the result stays a join.
 */
public final class CellMerge {
  private CellMerge() {}

  public static Cell merge(Cell a, Cell b) {
    return merge(a, b, MergeConflictListener.LOG);
  }

  /** REQUIRES: {@code a} and {@code b} belong to the same key. */
  public static Cell merge(Cell a, Cell b, MergeConflictListener conflicts) {
    if (a == b) {
      return a;
    }
    assert a.key().equals(b.key()) : "merging cells of different keys: " + a + " / " + b;
    Ballot promised = Ballot.max(a.promised(), b.promised());
    AcceptedValue accepted = mergeAccepted(a.key(), a.accepted(), b.accepted(), conflicts);
    PurgeMark purge = maxPurge(a.purge(), b.purge());
    long writeTime = Math.max(a.writeTimeMs(), b.writeTimeMs());
    // Return an input unchanged when it already is the join: saves an allocation on the hot path.
    if (isSame(a, promised, accepted, purge, writeTime)) {
      return a;
    }
    if (isSame(b, promised, accepted, purge, writeTime)) {
      return b;
    }
    return new Cell(a.key(), promised, accepted, purge, writeTime);
  }

  private static boolean isSame(
      Cell c, Ballot promised, AcceptedValue accepted, PurgeMark purge, long writeTime) {
    return c.promised() == promised
        && c.accepted() == accepted
        && c.purge() == purge
        && c.writeTimeMs() == writeTime;
  }

  static AcceptedValue mergeAccepted(
      Key key, AcceptedValue a, AcceptedValue b, MergeConflictListener conflicts) {
    if (a == null) {
      return b;
    }
    if (b == null || a == b) {
      return a;
    }
    int order = a.compareTo(b);
    if (order == 0 && !a.sameProposal(b)) {
      AcceptedValue kept = largerProposal(a, b);
      AcceptedValue dropped = kept == a ? b : a;
      conflicts.onConflict(key, kept, dropped);
      return kept.withChosen(a.chosen() || b.chosen());
    }
    AcceptedValue larger = order >= 0 ? a : b;
    AcceptedValue smaller = larger == a ? b : a;
    if (smaller.chosen() && !larger.chosen() && larger.sameInstance(smaller)) {
      return larger.withChosen(true);
    }
    return larger;
  }

  private static AcceptedValue largerProposal(AcceptedValue a, AcceptedValue b) {
    int c = Integer.compare(a.kind().code, b.kind().code);
    if (c == 0) {
      c = Arrays.compareUnsigned(a.valueUnsafe(), b.valueUnsafe());
    }
    return c >= 0 ? a : b;
  }

  private static PurgeMark maxPurge(PurgeMark a, PurgeMark b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.compareTo(b) >= 0 ? a : b;
  }
}
