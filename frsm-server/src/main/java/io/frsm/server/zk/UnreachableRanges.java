package io.frsm.server.zk;

import java.util.Set;
import java.util.TreeSet;

/**
 * The ranges whose quorum of replicas this node's cores cannot reach now (docs/PROTOCOL.md
 * "Step-down and the quorum watch"), as their {@code Effect.QuorumReachability} reports say: {@link
 * RangeLeadership} does not compete for them and hands over those it holds. Its event thread only.
 */
final class UnreachableRanges {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  private final int self;
  private final Set<Integer> unreachable = new TreeSet<>();

  UnreachableRanges(int self) {
    this.self = self;
  }

  /**
   * Takes in a report: of the ranges {@code replicated}, those in {@code lost} become unreachable,
   * those in {@code regained} reachable again. Returns whether anything changed.
   */
  boolean update(Set<Integer> lost, Set<Integer> regained, Set<Integer> replicated) {
    Set<Integer> newlyLost = new TreeSet<>(lost);
    newlyLost.retainAll(replicated);
    newlyLost.removeAll(unreachable);
    Set<Integer> newlyRegained = new TreeSet<>(regained);
    newlyRegained.retainAll(unreachable);
    if (newlyLost.isEmpty() && newlyRegained.isEmpty()) {
      return false;
    }
    unreachable.addAll(newlyLost);
    unreachable.removeAll(newlyRegained);
    if (!newlyLost.isEmpty()) {
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: no answer from a quorum of the replicas of ranges {1}: it hands over"
              + " those it holds and does not compete for them until it reaches a quorum",
          self,
          newlyLost);
    }
    if (!newlyRegained.isEmpty()) {
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: reaches a quorum of the replicas of ranges {1} again: competes for them",
          self,
          newlyRegained);
    }
    return true;
  }

  boolean contains(int range) {
    return unreachable.contains(range);
  }

  boolean isEmpty() {
    return unreachable.isEmpty();
  }

  /** The range is no longer replicated here: forget it. */
  void remove(int range) {
    unreachable.remove(range);
  }

  /** An immutable copy. */
  Set<Integer> snapshot() {
    return Set.copyOf(unreachable);
  }
}
