package io.frsm.consensus.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * One step of a membership change, checked: the rules the publisher of ring versions obeys
 * (docs/PROTOCOL.md "Membership changes"). Pure and deterministic; the server calls {@link #check}
 * before it publishes a version and {@link #mayFollow} before it publishes the next one.
 *
 * <ol>
 *   <li>Consecutive versions: {@code to} is {@code from}'s version plus one, with the same ranges.
 *   <li>Per range, the voters differ by at most one node: one added, or one removed, never both (a
 *       replacement is two steps). Learners may come and go freely.
 *   <li>No retired node id (removed, or whose disk was wiped) appears again: a node that forgot its
 *       promises must never answer as the acceptor that made them.
 *   <li>The step after this one may be published only once a quorum of {@code to}'s voters of every
 *       range whose members changed installed {@code to}, and every range whose voters changed was
 *       settled at {@code to} ({@link #mayFollow}) — except a range that only loses one voter of an
 *       even-sized set and keeps its learners ({@link #votersToSettle}, {@link #settleSpared}).
 * </ol>
 *
 * <p>Why one voter: any majority of a set and any majority of that set with one node added or
 * removed intersect, so rounds counted over adjacent versions are mutually safe. Versions two apart
 * may have disjoint majorities; rule 4 makes sure none of the older one forms again and that
 * everything chosen under it sits on a quorum of the middle one, which every later quorum meets.
 */
public final class RingTransition {
  private final Placement from;
  private final Placement to;
  private final List<Integer> membersChanged;
  private final List<Integer> votersChanged;
  private final List<Integer> votersToSettle;

  private RingTransition(
      Placement from,
      Placement to,
      List<Integer> membersChanged,
      List<Integer> votersChanged,
      List<Integer> votersToSettle) {
    this.from = from;
    this.to = to;
    this.membersChanged = membersChanged;
    this.votersChanged = votersChanged;
    this.votersToSettle = votersToSettle;
  }

  /** {@link #check(Placement, Placement, Set)} with no retired ids. */
  public static RingTransition check(Placement from, Placement to) {
    return check(from, to, Set.of());
  }

  /**
   * Checks that {@code to} may follow {@code from} (rules 1–3).
   *
   * @param retired node ids that must never replicate again (removed nodes, wiped disks)
   * @throws UnsafeRingTransitionException naming the first rule broken and where
   */
  public static RingTransition check(Placement from, Placement to, Set<Integer> retired) {
    if (to.ringVersion() != from.ringVersion() + 1) {
      throw new UnsafeRingTransitionException(
          "ring version "
              + to.ringVersion()
              + " cannot follow "
              + from.ringVersion()
              + ": versions go up by one");
    }
    if (to.rangeCount() != from.rangeCount()) {
      throw new UnsafeRingTransitionException(
          "version "
              + to.ringVersion()
              + " has "
              + to.rangeCount()
              + " ranges, version "
              + from.ringVersion()
              + " has "
              + from.rangeCount()
              + ": only replica sets may change");
    }
    List<Integer> members = new ArrayList<>();
    List<Integer> voters = new ArrayList<>();
    List<Integer> toSettle = new ArrayList<>();
    for (int range = 0; range < to.rangeCount(); range++) {
      if (to.endToken(range) != from.endToken(range)) {
        throw new UnsafeRingTransitionException(
            "range " + range + " ends at another token in version " + to.ringVersion());
      }
      List<Integer> before = from.replicas(range);
      List<Integer> after = to.replicas(range);
      int added = missingFrom(before, after);
      int removed = missingFrom(after, before);
      if (added + removed > 1) {
        throw new UnsafeRingTransitionException(
            "range "
                + range
                + " changes "
                + (added + removed)
                + " voters at once ("
                + before
                + " -> "
                + after
                + "): add one voter or remove one per version");
      }
      for (int node : to.members(range)) {
        if (retired.contains(node)) {
          throw new UnsafeRingTransitionException(
              "node "
                  + node
                  + " is retired (removed, or its disk was wiped) and may never replicate range "
                  + range
                  + " again: it forgot the promises it made; join it under a new id");
        }
      }
      boolean learnersChanged =
          missingFrom(from.learners(range), to.learners(range)) > 0
              || missingFrom(to.learners(range), from.learners(range)) > 0;
      if (added + removed > 0) {
        voters.add(range);
        if (!settleSpared(before, after, learnersChanged)) {
          toSettle.add(range);
        }
      }
      if (added + removed > 0 || learnersChanged) {
        members.add(range);
      }
    }
    return new RingTransition(
        from, to, List.copyOf(members), List.copyOf(voters), List.copyOf(toSettle));
  }

  /**
   * Whether a range whose voters change from {@code before} to {@code after} needs no settle under
   * rule 4(b) (docs/PROTOCOL.md "The drop from an even-sized set needs no settle"): {@code after}
   * is {@code before} with one voter removed, {@code before} has an even size {@code 2m}, and the
   * learners stay. By rule 4 applied to the steps before, every value chosen at {@code from} or
   * earlier is logged (accepted, synced) by a quorum {@code m+1} of {@code before}; the one voter
   * removed leaves at least {@code m} of them in {@code after}, which is a quorum of its {@code
   * 2m-1} voters. So the settle would re-log what a quorum of {@code after} holds logged already.
   * Rule (a) still holds by the wait for the installation quorum, which then no settle's listing
   * implies. Learners unchanged: a learner added at such a step would otherwise get its keys only
   * from the settle (a copy is asked at learner steps alone). Not for an odd-sized {@code before}:
   * {@code m+1} of {@code 2m+1} minus one may be {@code m}, short of a quorum of {@code 2m}.
   */
  static boolean settleSpared(List<Integer> before, List<Integer> after, boolean learnersChanged) {
    return !learnersChanged
        && before.size() % 2 == 0
        && after.size() == before.size() - 1
        && before.containsAll(after);
  }

  /** How many of {@code b}'s nodes {@code a} lacks. */
  private static int missingFrom(Collection<Integer> a, Collection<Integer> b) {
    int n = 0;
    for (int node : b) {
      if (!a.contains(node)) {
        n++;
      }
    }
    return n;
  }

  public Placement from() {
    return from;
  }

  public Placement to() {
    return to;
  }

  /** Ranges whose voters or learners change in this step (their installation is awaited). */
  public List<Integer> membersChanged() {
    return membersChanged;
  }

  /** Ranges whose voters change in this step. */
  public List<Integer> votersChanged() {
    return votersChanged;
  }

  /**
   * Ranges whose voters change in this step and which must be settled at {@code to} before the next
   * (rule 4b): {@link #votersChanged} but those whose settle is spared ({@link #settleSpared}: one
   * voter removed from an even-sized set, learners unchanged).
   */
  public List<Integer> votersToSettle() {
    return votersToSettle;
  }

  /**
   * Rule 4: whether the next version may be published, given the nodes that reported {@code to}
   * installed ({@link Effect.RingInstalled} with its version or a later one) and the ranges settled
   * at {@code to} ({@link Effect.RangeSettled} with {@code settled}). A settle counts only if it
   * was asked for after the installation quorum of its range: the orchestrator asks in that order.
   */
  public boolean mayFollow(Set<Integer> installedBy, Set<Integer> settledRanges) {
    for (int range : membersChanged) {
      if (!installedByQuorum(range, installedBy)) {
        return false;
      }
    }
    return settledRanges.containsAll(votersToSettle);
  }

  /** Whether a quorum of {@code to}'s voters of {@code range} installed {@code to}. */
  public boolean installedByQuorum(int range, Set<Integer> installedBy) {
    List<Integer> voters = to.replicas(range);
    int installed = 0;
    for (int node : voters) {
      if (installedBy.contains(node)) {
        installed++;
      }
    }
    return installed >= CoreConfig.quorum(voters.size());
  }
}
