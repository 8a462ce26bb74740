package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.List;

/**
 * A new placement for a running core ({@link Input.PlacementChanged}) checked against the current
 * one, and which ranges' replica sets it changes.
 *
 * <p>What a core can take: the same ranges — as many, with the same end tokens — and any replica
 * set for each. Everything a core keeps per range (term, lease, scan, shard ownership) and every
 * acceptor's term cell is indexed by range, and a key's range is found by token; with other
 * boundaries a key would change ranges under state that belongs to its old one. A range's replica
 * set counts as changed when its members differ; a new order of the same members (another natural
 * leader) is not a change of the set: quorums stay the same.
 */
final class PlacementChange {
  private final Placement next;
  private final boolean[] replicasChanged;

  private PlacementChange(Placement next, boolean[] replicasChanged) {
    this.next = next;
    this.replicasChanged = replicasChanged;
  }

  /**
   * @throws IllegalArgumentException if {@code next} has other ranges than {@code current}: another
   *     count, or another end token for some range
   */
  static PlacementChange between(Placement current, Placement next) {
    int ranges = current.rangeCount();
    if (next.rangeCount() != ranges) {
      throw new IllegalArgumentException(
          "a new placement must keep the ranges: "
              + ranges
              + " ranges now, "
              + next.rangeCount()
              + " in the new one (only replica sets may change)");
    }
    boolean[] changed = new boolean[ranges];
    for (int range = 0; range < ranges; range++) {
      if (next.endToken(range) != current.endToken(range)) {
        throw new IllegalArgumentException(
            "a new placement must keep the ranges: range "
                + range
                + " ends at token "
                + current.endToken(range)
                + " now, at "
                + next.endToken(range)
                + " in the new one (only replica sets may change)");
      }
      changed[range] = !sameMembers(current.replicas(range), next.replicas(range));
    }
    return new PlacementChange(next, changed);
  }

  /** Whether {@code a} and {@code b} hold the same nodes, in any order (both hold no repeats). */
  static boolean sameMembers(List<Integer> a, List<Integer> b) {
    return a == b || (a.size() == b.size() && a.containsAll(b));
  }

  Placement next() {
    return next;
  }

  /** Whether range {@code range}'s replica set has other members in the new placement. */
  boolean replicasChanged(int range) {
    return replicasChanged[range];
  }

  /** Whether {@code key}'s range's replica set has other members in the new placement. */
  boolean replicasChanged(Key key) {
    return replicasChanged[next.rangeOf(key)];
  }
}
