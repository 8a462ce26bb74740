package io.frsm.server.membership;

import io.frsm.consensus.core.Placement;
import io.frsm.lsm.QuarantinedInterval;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which ranges a node's quarantine touches, and the order rule of its release (docs/PROTOCOL.md
 * "Corrupt storage", "Repair"). Pure: the node's repair agent and the tests call it.
 *
 * <p>A range covers the tokens {@code (startTokenExclusive, endToken]}, wrapping past the largest
 * token; a quarantined interval is closed. A range and an interval intersect if they share one
 * token.
 */
public final class RepairScope {
  private RepairScope() {}

  /** Whether range {@code range} of {@code p} holds a token of {@code [from, to]}. */
  static boolean intersects(Placement p, int range, long from, long to) {
    if (from > to) {
      throw new IllegalArgumentException("an interval [" + from + ", " + to + "] is empty");
    }
    if (p.rangeCount() == 1) {
      return true; // one range holds every token
    }
    long start = p.startTokenExclusive(range);
    long end = p.endToken(range);
    if (start < end) {
      return from <= end && to > start;
    }
    return to > start || from <= end; // wraps: (start, MAX] and [MIN, end]
  }

  /** The ranges of {@code p} where {@code node} is a voter and that hold a quarantined token. */
  public static List<Integer> affected(
      Placement p, int node, Collection<QuarantinedInterval> quarantined) {
    Set<Integer> ranges = new TreeSet<>();
    for (int r = 0; r < p.rangeCount(); r++) {
      if (!p.replicas(r).contains(node)) {
        continue;
      }
      for (QuarantinedInterval q : quarantined) {
        if (intersects(p, r, q.tokens().fromToken(), q.tokens().toToken())) {
          ranges.add(r);
          break;
        }
      }
    }
    return List.copyOf(ranges);
  }

  /**
   * Whether every range of {@code learnerVersion} that holds a token of {@code intervals} and has
   * {@code node} as a member has it as a learner only: then a release of those intervals is covered
   * by the repair (others wait for a repair of their own).
   */
  public static boolean covered(
      Placement learnerVersion, int node, Collection<QuarantinedInterval> intervals) {
    for (QuarantinedInterval q : intervals) {
      for (int r = 0; r < learnerVersion.rangeCount(); r++) {
        if (learnerVersion.replicas(r).contains(node)
            && intersects(learnerVersion, r, q.tokens().fromToken(), q.tokens().toToken())) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The order rule, checked right before a release (steps 2–4 of the repair): the node runs ring
   * version {@code learnerVersion} exactly (it installed it and is not a voter again), is a learner
   * and not a voter there of every range holding a token of {@code intervals}, and each such range
   * was settled at that version. Releasing earlier lets a round of an older version count a promise
   * the node forgot.
   *
   * @param installed the ring version the node's cores run
   * @param settled the ranges whose settle at {@code learnerVersion} was answered
   * @throws IllegalStateException naming the broken condition; nothing must be released then
   */
  public static void checkRelease(
      int node,
      long installed,
      Placement learnerVersion,
      Set<Integer> settled,
      Collection<QuarantinedInterval> intervals) {
    long v = learnerVersion.ringVersion();
    if (installed != v) {
      throw new IllegalStateException(
          "node "
              + node
              + " runs ring version "
              + installed
              + ", not the learner version "
              + v
              + " of its repair: a quarantine is released only once the node installed that"
              + " version and before it is a voter again");
    }
    for (QuarantinedInterval q : intervals) {
      for (int r = 0; r < learnerVersion.rangeCount(); r++) {
        if (!learnerVersion.members(r).contains(node)
            || !intersects(learnerVersion, r, q.tokens().fromToken(), q.tokens().toToken())) {
          continue;
        }
        if (learnerVersion.replicas(r).contains(node)) {
          throw new IllegalStateException(
              "node "
                  + node
                  + " is a voter of range "
                  + r
                  + " at ring version "
                  + v
                  + ", which holds quarantined tokens "
                  + q.tokens()
                  + ": it must be a learner there before the release");
        }
        if (!settled.contains(r)) {
          throw new IllegalStateException(
              "range " + r + " is not settled at ring version " + v + ": the release waits for it");
        }
      }
    }
  }
}
