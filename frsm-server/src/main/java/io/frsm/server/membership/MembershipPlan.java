package io.frsm.server.membership;

import io.frsm.consensus.core.Placement;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ring versions one membership change publishes (docs/PROTOCOL.md "Membership changes", "The
 * server's side"). Pure and deterministic: the same base version and target give the same steps, so
 * an orchestrator that crashed recomputes them and resumes where the history stands.
 *
 * <p>The formation's range cut stays (the core forbids changing end tokens). A range's target
 * voters are the first RF distinct nodes clockwise from its end token over the target node set
 * ({@link #votersOver}); adding, removing or replacing one node changes, per range, at most one
 * voter in and one out. The steps:
 *
 * <ol>
 *   <li>{@code v+1}: each incoming node joins all its ranges as a learner (and copies them);
 *   <li>{@code v+2}: the learners of a batch of changed ranges are promoted to voters (RF+1 voters
 *       while the batch settles);
 *   <li>{@code v+3}: each outgoing node leaves the batch's ranges;
 * </ol>
 *
 * and the promotion and drop again for each further batch; the last drop also retires the nodes
 * left in no range. With {@code rangesPerNode} 0 every changed range is in one batch (three
 * versions). Otherwise a batch holds at most {@code rangesPerNode} changed ranges per <i>settling
 * node</i> — the range's first voter that stays in it, which leads it and runs its settle — so
 * every node settles at most that many ranges at once, in parallel with the others, and only those
 * ranges need RF+1 acknowledgements for their accepts while they settle (docs/OPERATIONS.md
 * "Keeping the foreground served during a change"). Ranges whose members do not change but whose
 * voters' order does take their target order at the last step.
 *
 * <p>Each step is checked with {@link RingHistory#checkStep} when planned; a target that would need
 * two voters in or out of one range at once is refused.
 */
public final class MembershipPlan {
  private final List<RingVersion> steps;
  private final List<Incoming> incoming;

  /** An incoming voter of a range and the node to copy its data from (the range's first voter). */
  public record Incoming(int range, int node, int source) {}

  private MembershipPlan(List<RingVersion> steps, List<Incoming> incoming) {
    this.steps = List.copyOf(steps);
    this.incoming = List.copyOf(incoming);
  }

  /**
   * The steps from {@code base} to {@code target} (one voter set per range, preference order).
   *
   * @param retire node ids to retire in the last step (each must be in no range of the target)
   * @throws IllegalArgumentException if a range gains or loses more than one voter, or a retired id
   *     stays in the target
   */
  public static MembershipPlan between(
      RingVersion base, List<List<Integer>> target, Set<Integer> retire) {
    return between(base, target, retire, 0);
  }

  /**
   * The steps from {@code base} to {@code target}, promoting and dropping the changed ranges in
   * batches of at most {@code rangesPerNode} ranges per settling node (0: all in one batch).
   *
   * @throws IllegalArgumentException as {@link #between(RingVersion, List, Set)}, or for {@code
   *     rangesPerNode} out of range ({@link MembershipChange#checkRangesPerNode})
   */
  public static MembershipPlan between(
      RingVersion base, List<List<Integer>> target, Set<Integer> retire, int rangesPerNode) {
    MembershipChange.checkRangesPerNode(rangesPerNode);
    Placement from = base.placement();
    if (target.size() != from.rangeCount()) {
      throw new IllegalArgumentException(
          "the target has " + target.size() + " ranges, the ring " + from.rangeCount());
    }
    for (int r = 0; r < from.rangeCount(); r++) {
      if (!from.learners(r).isEmpty()) {
        throw new IllegalArgumentException(
            "range " + r + " has learners " + from.learners(r) + ": another change is unfinished");
      }
    }
    int ranges = from.rangeCount();
    List<List<Integer>> learnerStep = new ArrayList<>();
    List<Incoming> incoming = new ArrayList<>();
    // The changed ranges per settling node, ascending (a TreeMap: the same plan on every node).
    java.util.SortedMap<Integer, List<Integer>> changedBySettler = new java.util.TreeMap<>();
    for (int r = 0; r < ranges; r++) {
      List<Integer> now = from.replicas(r);
      List<Integer> next = target.get(r);
      List<Integer> in = next.stream().filter(n -> !now.contains(n)).toList();
      List<Integer> out = now.stream().filter(n -> !next.contains(n)).toList();
      if (in.size() > 1 || out.size() > 1) {
        throw new IllegalArgumentException(
            "range "
                + r
                + " would change voters "
                + now
                + " -> "
                + next
                + ": a membership change moves at most one voter in and one out per range");
      }
      learnerStep.add(in);
      for (int node : in) {
        incoming.add(new Incoming(r, node, now.get(0)));
      }
      if (!in.isEmpty() || !out.isEmpty()) {
        int settler = now.stream().filter(next::contains).findFirst().orElse(now.get(0));
        changedBySettler.computeIfAbsent(settler, k -> new ArrayList<>()).add(r);
      }
    }
    if (changedBySettler.isEmpty()) {
      return new MembershipPlan(List.of(), List.of());
    }
    Set<Integer> retired = new TreeSet<>(base.retired());
    retired.addAll(retire);
    List<List<Integer>> none = java.util.Collections.nCopies(ranges, List.of());
    List<Long> ends = new ArrayList<>();
    List<List<Integer>> voters = new ArrayList<>();
    for (int r = 0; r < ranges; r++) {
      ends.add(from.endToken(r));
      voters.add(from.replicas(r));
    }
    long v = base.version();
    List<RingVersion> steps = new ArrayList<>();
    RingVersion previous = base;
    RingVersion learners =
        new RingVersion(Placement.of(++v, ends, voters, learnerStep), base.retired());
    RingHistory.checkStep(previous, learners);
    steps.add(learners);
    previous = learners;
    List<List<Integer>> batches = batches(from, changedBySettler, rangesPerNode);
    List<List<Integer>> pendingLearners = new ArrayList<>(learnerStep);
    for (int b = 0; b < batches.size(); b++) {
      boolean last = b == batches.size() - 1;
      for (int r : batches.get(b)) {
        List<Integer> withIncoming = new ArrayList<>(voters.get(r));
        withIncoming.addAll(pendingLearners.get(r));
        voters.set(r, withIncoming);
        pendingLearners.set(r, List.of());
      }
      RingVersion promote =
          new RingVersion(Placement.of(++v, ends, voters, pendingLearners), base.retired());
      RingHistory.checkStep(previous, promote);
      steps.add(promote);
      previous = promote;
      if (last) {
        voters = new ArrayList<>(target); // and every reordered range takes its target order
      } else {
        for (int r : batches.get(b)) {
          voters.set(r, target.get(r));
        }
      }
      RingVersion dropped =
          new RingVersion(
              Placement.of(++v, ends, voters, last ? none : pendingLearners),
              last ? retired : base.retired());
      RingHistory.checkStep(previous, dropped);
      steps.add(dropped);
      previous = dropped;
    }
    return new MembershipPlan(steps, incoming);
  }

  /**
   * The changed ranges in batches: the {@code b}-th batch takes, of every settling node's ranges
   * ordered widest token span first, those from {@code b * rangesPerNode} on, at most {@code
   * rangesPerNode}; one batch of them all for 0. A batch lasts as long as its slowest settle, and
   * keys hash uniformly over the tokens, so ranges of like width settle side by side and no node
   * waits long for another's wide range.
   */
  private static List<List<Integer>> batches(
      Placement from,
      java.util.SortedMap<Integer, List<Integer>> changedBySettler,
      int rangesPerNode) {
    List<List<Integer>> batches = new ArrayList<>();
    if (rangesPerNode == 0) {
      List<Integer> all = new ArrayList<>();
      changedBySettler.values().forEach(all::addAll);
      all.sort(null);
      batches.add(all);
      return batches;
    }
    java.util.Comparator<Integer> widestFirst =
        java.util.Comparator.<Integer, Long>comparing(r -> span(from, r), Long::compareUnsigned)
            .reversed()
            .thenComparing(r -> r);
    List<List<Integer>> widestFirstBySettler = new ArrayList<>();
    for (List<Integer> own : changedBySettler.values()) {
      List<Integer> sorted = new ArrayList<>(own);
      sorted.sort(widestFirst);
      widestFirstBySettler.add(sorted);
    }
    int most = widestFirstBySettler.stream().mapToInt(List::size).max().orElse(0);
    for (int first = 0; first < most; first += rangesPerNode) {
      List<Integer> batch = new ArrayList<>();
      for (List<Integer> own : widestFirstBySettler) {
        batch.addAll(
            own.subList(Math.min(first, own.size()), Math.min(first + rangesPerNode, own.size())));
      }
      batch.sort(null);
      batches.add(batch);
    }
    return batches;
  }

  /** How many tokens {@code range} covers, as an unsigned count (the whole ring: 0). */
  private static long span(Placement p, int range) {
    return p.endToken(range) - p.startTokenExclusive(range);
  }

  /**
   * The two versions of a repair (docs/PROTOCOL.md "Corrupt storage"): {@code v+1} demotes {@code
   * node} to a learner of each of {@code ranges} (one voter out, rule 2), {@code v+2} makes it a
   * voter again in its old place (one voter in). Other ranges keep their members.
   *
   * @throws IllegalArgumentException if a range has learners (another change is unfinished), the
   *     node is not a voter of one of {@code ranges}, or demoting it would leave fewer voters than
   *     a quorum of the range's voters (the range could not commit while it repairs)
   */
  public static MembershipPlan repair(RingVersion base, int node, List<Integer> ranges) {
    Placement from = base.placement();
    int count = from.rangeCount();
    List<List<Integer>> voters = new ArrayList<>();
    List<List<Integer>> demoted = new ArrayList<>();
    List<List<Integer>> learners = new ArrayList<>();
    List<Long> ends = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      if (!from.learners(r).isEmpty()) {
        throw new IllegalArgumentException(
            "range " + r + " has learners " + from.learners(r) + ": another change is unfinished");
      }
      voters.add(from.replicas(r));
      ends.add(from.endToken(r));
      demoted.add(from.replicas(r));
      learners.add(List.of());
    }
    for (int r : ranges) {
      if (r < 0 || r >= count || !from.replicas(r).contains(node)) {
        throw new IllegalArgumentException(
            "node "
                + node
                + " is not a voter of range "
                + r
                + " at ring version "
                + base.version());
      }
      List<Integer> rest = from.replicas(r).stream().filter(n -> n != node).toList();
      int quorum = io.frsm.consensus.core.CoreConfig.quorum(from.replicas(r).size());
      if (rest.size() < quorum) {
        throw new IllegalArgumentException(
            "repairing node "
                + node
                + " would leave range "
                + r
                + " with voters "
                + rest
                + ", fewer than a quorum ("
                + quorum
                + ") of its "
                + from.replicas(r).size()
                + " voters: the range could commit nothing while it repairs; add a node first");
      }
      demoted.set(r, rest);
      learners.set(r, List.of(node));
    }
    long v = base.version();
    List<List<Integer>> none = java.util.Collections.nCopies(count, List.of());
    RingVersion learner =
        new RingVersion(Placement.of(v + 1, ends, demoted, learners), base.retired());
    RingVersion restored = new RingVersion(Placement.of(v + 2, ends, voters, none), base.retired());
    RingHistory.checkStep(base, learner);
    RingHistory.checkStep(learner, restored);
    return new MembershipPlan(List.of(learner, restored), List.of());
  }

  /**
   * Each range's voters over {@code nodes}: the first {@code replicationFactor} distinct nodes
   * clockwise from the range's end token in {@code formed} (racks spread first, as the ring places
   * them), each node owning the vnode tokens its id hashes to.
   */
  public static List<List<Integer>> votersOver(
      Placement formed, Collection<NodeInfo> nodes, int vnodes, int replicationFactor) {
    return votersOver(formed, nodes, java.util.Map.of(), vnodes, replicationFactor);
  }

  /**
   * As {@link #votersOver(Placement, Collection, int, int)}, where a node named in {@code tokensOf}
   * owns the vnode tokens of the id it maps to (a replacement owns its dead predecessor's tokens).
   */
  public static List<List<Integer>> votersOver(
      Placement formed,
      Collection<NodeInfo> nodes,
      java.util.Map<Integer, Integer> tokensOf,
      int vnodes,
      int replicationFactor) {
    java.util.Map<Integer, Integer> byTokenId = new java.util.HashMap<>();
    List<NodeInfo> asTokenIds = new ArrayList<>(nodes.size());
    for (NodeInfo n : nodes) {
      int tokenId = tokensOf.getOrDefault(n.nodeId(), n.nodeId());
      if (byTokenId.put(tokenId, n.nodeId()) != null) {
        throw new IllegalArgumentException(
            "two nodes own the tokens of node " + tokenId + ": " + nodes + ", " + tokensOf);
      }
      asTokenIds.add(new NodeInfo(tokenId, n.host(), n.peerPort(), n.clientPort(), n.rack()));
    }
    Ring ring = Ring.of(0, asTokenIds, vnodes, replicationFactor);
    List<List<Integer>> voters = new ArrayList<>(formed.rangeCount());
    for (int r = 0; r < formed.rangeCount(); r++) {
      voters.add(ring.replicasFor(formed.endToken(r)).stream().map(byTokenId::get).toList());
    }
    return voters;
  }

  /**
   * Each range's voters with {@code dead} replaced by {@code replacement} in its place: the new
   * node takes the dead node's tokens, so every other range keeps its voters.
   */
  public static List<List<Integer>> replacing(Placement current, int dead, int replacement) {
    List<List<Integer>> voters = new ArrayList<>(current.rangeCount());
    for (int r = 0; r < current.rangeCount(); r++) {
      List<Integer> set = new ArrayList<>(current.replicas(r));
      set.replaceAll(n -> n == dead ? replacement : n);
      voters.add(List.copyOf(new LinkedHashSet<>(set)));
    }
    return voters;
  }

  /** The versions to publish, in order; empty if the target is the current voter sets. */
  public List<RingVersion> steps() {
    return steps;
  }

  /** The incoming voters, per range, with the node their data is copied from. */
  public List<Incoming> incoming() {
    return incoming;
  }

  /** Every node that is a member of some range in {@code p}. */
  static Set<Integer> membersOf(Placement p) {
    return new HashSet<>(p.nodes());
  }
}
