package io.frsm.testkit.sim;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RangeTerm;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The Paxos safety invariants, checked on every durable change and every accept sent (so after
 * every simulator step). Independent of the simulator and the core: it sees only durable cells and
 * messages.
 *
 * <ol>
 *   <li>promised (stored and effective) never decreases per replica per key, across crashes;
 *   <li>per {@code (key, epoch, timestamp)} at most one value is ever accepted by a quorum;
 *   <li>every durable cell marked chosen holds a value that {@code q} replicas durably accepted at
 *       its instance under one ballot;
 *   <li>no ballot carries two values at one instance.
 * </ol>
 */
public final class SafetyChecker {
  private final Placement placement;

  private record Instance(Key key, long epoch, long timestamp) {}

  private record BallotAtInstance(Instance instance, Ballot ballot) {}

  /** The one value each ballot carried at each instance. */
  private final Map<BallotAtInstance, AcceptedValue> proposals = new HashMap<>();

  /** Which replicas durably accepted each ballot's value at each instance. */
  private final Map<BallotAtInstance, Set<Integer>> acceptors = new HashMap<>();

  /** The value a quorum accepted at each instance, once one did. */
  private final Map<Instance, AcceptedValue> quorumValues = new HashMap<>();

  private long checks;

  public SafetyChecker(Placement placement) {
    this.placement = placement;
  }

  /** The replica set of {@code key}: a range-term cell lives on its range's replicas. */
  private java.util.List<Integer> replicasOf(Key key) {
    int range = RangeTerm.rangeOf(key);
    return range >= 0 ? placement.replicas(range) : placement.replicasOf(key);
  }

  public long checks() {
    return checks;
  }

  void onSend(int from, Message message) {
    if (message instanceof Message.Accept accept) {
      checks++;
      recordProposal(accept.key(), accept.proposal(), "node " + from + " sent");
    }
  }

  /**
   * {@code delta} was merged into {@code before} (null: nothing yet), giving {@code after}. Only an
   * accept's delta (a proposal, never marked chosen) counts the replica as an acceptor: a commit
   * teaches a value, it does not vote for it.
   */
  void onDurable(int node, Cell before, Cell delta, Cell after) {
    checks++;
    Key key = after.key();
    if (!replicasOf(key).contains(node)) {
      throw new SafetyViolation(
          "node " + node + " stored " + key + " outside its replica set " + replicasOf(key));
    }
    if (before != null) {
      if (after.promised().compareTo(before.promised()) < 0
          || after.effectivePromise().compareTo(before.effectivePromise()) < 0) {
        throw new SafetyViolation(
            "promised decreased on node " + node + " key " + key + ": " + before + " -> " + after);
      }
    }
    AcceptedValue a = after.accepted();
    if (a == null) {
      return;
    }
    BallotAtInstance at = recordProposal(key, a, "node " + node + " holds");
    boolean voted =
        delta.accepted() != null && !delta.accepted().chosen() && a.sameProposal(delta.accepted());
    Set<Integer> who = acceptors.computeIfAbsent(at, x -> new HashSet<>());
    if (voted && who.add(node) && who.size() == CoreConfig.quorum(replicasOf(key).size())) {
      AcceptedValue earlier = quorumValues.putIfAbsent(at.instance(), a);
      if (earlier != null && !sameValue(earlier, a)) {
        throw new SafetyViolation(
            "two values accepted by a quorum at " + at.instance() + ": " + earlier + " and " + a);
      }
    }
    if (a.chosen()) {
      Instance instance = at.instance();
      AcceptedValue quorumValue = quorumValues.get(instance);
      if (quorumValue == null || !sameValue(quorumValue, a)) {
        throw new SafetyViolation(
            "node "
                + node
                + " marks "
                + a
                + " chosen for "
                + key
                + " but no quorum durably accepted that value at its instance"
                + " (quorum value: "
                + quorumValue
                + ")");
      }
    }
  }

  private BallotAtInstance recordProposal(Key key, AcceptedValue a, String where) {
    BallotAtInstance at =
        new BallotAtInstance(new Instance(key, a.epoch(), a.timestamp()), a.accepted());
    AcceptedValue earlier = proposals.putIfAbsent(at, a);
    if (earlier != null && !sameValue(earlier, a)) {
      throw new SafetyViolation(
          "ballot "
              + a.accepted()
              + " carries two values at "
              + at.instance()
              + ": "
              + earlier
              + " and "
              + a
              + " ("
              + where
              + ")");
    }
    return at;
  }

  private static boolean sameValue(AcceptedValue x, AcceptedValue y) {
    return x.kind() == y.kind() && java.util.Arrays.equals(x.valueUnsafe(), y.valueUnsafe());
  }

  @Override
  public String toString() {
    return "SafetyChecker{checks=" + checks + ", instances=" + quorumValues.size() + "}";
  }
}
