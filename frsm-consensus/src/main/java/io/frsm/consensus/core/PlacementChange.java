package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.List;

/**
 * A new placement for a running core ({@link Input.PlacementChanged}) checked against the current
 * one, and what it changes per range (docs/PROTOCOL.md "Membership changes").
 *
 * <p>What a core can take: a newer ring version with the same ranges — as many, with the same end
 * tokens — and any voters and learners for each. Everything a core keeps per range (term, lease,
 * scan, shard ownership) and every acceptor's term cell is indexed by range, and a key's range is
 * found by token; with other boundaries a key would change ranges under state that belongs to its
 * old one. Whether a step is a safe membership step (one voter per range) is {@link
 * RingTransition}'s question, asked by whoever publishes versions: the core takes what it is given.
 *
 * <p>A range's <em>voters</em> change when their members differ; a new order of the same members
 * (another natural leader) is no change: quorums stay the same. A range's <em>members</em> (voters
 * and learners) change when either does.
 */
final class PlacementChange {
  private final Placement next;
  private final boolean[] votersChanged;
  private final boolean[] membersChanged;

  private PlacementChange(Placement next, boolean[] votersChanged, boolean[] membersChanged) {
    this.next = next;
    this.votersChanged = votersChanged;
    this.membersChanged = membersChanged;
  }

  /**
   * The change from {@code current} to {@code next}, or null if {@code next} changes nothing: it is
   * {@code current} again, or older (a late notice: a core never goes back to an older version).
   *
   * @throws IllegalArgumentException if {@code next} has the version of {@code current} with other
   *     contents (one version names one placement), or other ranges than {@code current}: another
   *     count, or another end token for some range
   */
  static PlacementChange between(Placement current, Placement next) {
    if (next.ringVersion() < current.ringVersion()) {
      return null;
    }
    if (next.ringVersion() == current.ringVersion()) {
      if (next.equals(current)) {
        return null;
      }
      throw new IllegalArgumentException(
          "ring version "
              + next.ringVersion()
              + " names another placement than the one installed: a new placement needs a newer"
              + " ring version");
    }
    int ranges = current.rangeCount();
    if (next.rangeCount() != ranges) {
      throw new IllegalArgumentException(
          "a new placement must keep the ranges: "
              + ranges
              + " ranges now, "
              + next.rangeCount()
              + " in the new one (only replica sets may change)");
    }
    boolean[] voters = new boolean[ranges];
    boolean[] members = new boolean[ranges];
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
      voters[range] = !sameMembers(current.replicas(range), next.replicas(range));
      members[range] = voters[range] || !sameMembers(current.learners(range), next.learners(range));
    }
    return new PlacementChange(next, voters, members);
  }

  /** Whether {@code a} and {@code b} hold the same nodes, in any order (both hold no repeats). */
  static boolean sameMembers(List<Integer> a, List<Integer> b) {
    return a == b || (a.size() == b.size() && a.containsAll(b));
  }

  /** Whether {@code to} is {@code from} with exactly one node added or removed (in any order). */
  static boolean oneVoterApart(List<Integer> from, List<Integer> to) {
    List<Integer> larger = from.size() > to.size() ? from : to;
    List<Integer> smaller = larger == from ? to : from;
    return larger.size() == smaller.size() + 1 && larger.containsAll(smaller);
  }

  Placement next() {
    return next;
  }

  /** Whether range {@code range}'s voters have other members in the new placement. */
  boolean replicasChanged(int range) {
    return votersChanged[range];
  }

  /** The ranges whose voters have other members in the new placement, in range order. */
  int[] rangesWithReplicasChanged() {
    return java.util.stream.IntStream.range(0, next.rangeCount())
        .filter(this::replicasChanged)
        .toArray();
  }

  /** Whether {@code key}'s range's voters have other members in the new placement. */
  boolean replicasChanged(Key key) {
    return votersChanged[next.rangeOf(key)];
  }

  /** Whether range {@code range}'s voters or learners have other members in the new placement. */
  boolean membersChanged(int range) {
    return membersChanged[range];
  }
}
