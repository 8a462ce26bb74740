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
import java.util.List;
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
 *
 * <p>Membership changes (docs/PROTOCOL.md "Membership changes"): a ballot's value counts as
 * accepted by a quorum once the replicas that durably accepted it hold a majority of the voters of
 * the ring version its {@code Accept} carried, <em>or of any version published after it</em>. The
 * later versions matter because a learner may durably accept a proposal (a delete's, since
 * 2026-11-29; every proposal before; its ack is never counted in the round) and, once promoted, its
 * copy is as good as a voter's: a read at the next version that finds a majority of that version's
 * voters holding one triple rightly takes it as chosen, and every quorum of both versions meets
 * such a majority (adjacent versions differ by one voter). This is the lenient reading for rule 3
 * (a chosen flag needs a majority of some version at or after the ballot's) and the strict one for
 * rule 2 (more values count as accepted by a quorum). Learners' accepts never make a majority of
 * the version they were learners in: {@code LEARNER_VOTES} stays visible. A node may store a key of
 * a range it was a voter or learner of in some published version (ex-members keep their cells).
 */
public final class SafetyChecker {
  private final RingHistory history;

  private record Instance(Key key, long epoch, long timestamp) {}

  private record BallotAtInstance(Instance instance, Ballot ballot) {}

  /** The one value each ballot carried at each instance. */
  private final Map<BallotAtInstance, AcceptedValue> proposals = new HashMap<>();

  /** Which replicas durably accepted each ballot's value at each instance. */
  private final Map<BallotAtInstance, Set<Integer>> acceptors = new HashMap<>();

  /** The oldest ring version each ballot's accepts at each instance carried. */
  private final Map<BallotAtInstance, Long> roundVersions = new HashMap<>();

  /** The value a quorum accepted at each instance, once one did. */
  private final Map<Instance, AcceptedValue> quorumValues = new HashMap<>();

  private long checks;

  /** The range term each ballot's accepts carried at each instance (the first seen). */
  private final Map<BallotAtInstance, Long> acceptTerms = new HashMap<>();

  private record RangeTermId(int range, long term) {}

  /**
   * Per range and term: the keys with an instance whose value a quorum first accepted under an
   * accept of that term (the truth a covering hand-off shipment is checked against).
   */
  private final Map<RangeTermId, Set<Key>> firstChosenInTerm = new HashMap<>();

  public SafetyChecker(Placement placement) {
    this(new RingHistory(placement));
  }

  SafetyChecker(RingHistory history) {
    this.history = history;
  }

  /** The range of {@code key}: a range-term cell lives on its range's replicas. */
  private int rangeOf(Key key) {
    int range = RangeTerm.rangeOf(key);
    return range >= 0 ? range : history.latest().rangeOf(key);
  }

  public long checks() {
    return checks;
  }

  void onSend(int from, Message message) {
    if (message instanceof Message.Accept accept) {
      checks++;
      BallotAtInstance at =
          recordProposal(accept.key(), accept.proposal(), "node " + from + " sent");
      roundVersions.merge(at, accept.ringVersion(), Math::min);
      acceptTerms.putIfAbsent(at, accept.term());
    }
  }

  /**
   * The keys of {@code range} with a value first chosen — accepted by a quorum before any other
   * ballot's value at its instance — under an accept of term {@code term}.
   */
  public Set<Key> keysFirstChosenInTerm(int range, long term) {
    return Set.copyOf(firstChosenInTerm.getOrDefault(new RangeTermId(range, term), Set.of()));
  }

  private void firstChosen(BallotAtInstance at, int range) {
    Long term = acceptTerms.get(at);
    if (term != null && term > 0) {
      firstChosenInTerm
          .computeIfAbsent(new RangeTermId(range, term), x -> new HashSet<>())
          .add(at.instance().key());
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
    int range = rangeOf(key);
    if (!history.everMember(range, node)) {
      throw new SafetyViolation(
          "node "
              + node
              + " stored "
              + key
              + " outside its replica set "
              + history.latest().members(range)
              + (history.size() > 1 ? " (never a member of range " + range + ")" : ""));
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
    if (voted && who.add(node) && quorumAccepted(at, range, who)) {
      AcceptedValue earlier = quorumValues.putIfAbsent(at.instance(), a);
      if (earlier == null) {
        firstChosen(at, range);
      }
      if (earlier != null && !sameValue(earlier, a)) {
        throw new SafetyViolation(
            "two values accepted by a quorum at " + at.instance() + ": " + earlier + " and " + a);
      }
    }
    if (a.chosen()) {
      Instance instance = at.instance();
      if (!quorumValues.containsKey(instance) && quorumAccepted(at, range, who)) {
        // A majority of a version published after the last vote (a learner promoted since).
        quorumValues.put(instance, a);
        firstChosen(at, range);
      }
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

  /**
   * Whether {@code who} holds a majority of the voters of the oldest version the ballot's accepts
   * carried, or of a later published one (from the first version if no accept of it was seen).
   */
  private boolean quorumAccepted(BallotAtInstance at, int range, Set<Integer> who) {
    long first = roundVersions.getOrDefault(at, Long.MIN_VALUE);
    for (Placement placement : history.since(first)) {
      List<Integer> voters = placement.replicas(range);
      int votes = 0;
      for (int voter : voters) {
        if (who.contains(voter)) {
          votes++;
        }
      }
      if (votes >= CoreConfig.quorum(voters.size())) {
        return true;
      }
    }
    return false;
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
