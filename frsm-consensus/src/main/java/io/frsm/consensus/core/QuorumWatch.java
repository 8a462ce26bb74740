package io.frsm.consensus.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * Whether this node can reach a quorum of each range's replicas (docs/DESIGN.md "Lease invariant"
 * rule 6; docs/PROTOCOL.md "Step-down and the quorum watch"). Its only evidence is round trips: a
 * peer is <em>unreachable</em> once a request this node sent it has gone unanswered for {@code
 * unreachableAfter} of this node's own running time, with no reply from the peer since; any reply
 * makes it reachable again at once. A request of the peer, or a commit, proves nothing about this
 * node's messages reaching the peer, so only replies count.
 *
 * <p>A peer this node has heard no reply from for a quarter of {@code unreachableAfter} gets a
 * probe: a {@link Message.Read} of the reserved term cell of a range both replicate and this core
 * owns (the reply comes back to this core; the acceptor answers it from its term cell and writes
 * nothing). So an idle node still learns who answers, and a node that stopped competing learns when
 * it can reach a quorum again, without any new message type. A loaded node sends no probes: its
 * rounds are the evidence.
 *
 * <p>Per range this core owns and replicates, the quorum is reachable while this node and the
 * replicas not unreachable number at least {@code q}. Each change is reported once as {@link
 * Effect.QuorumReachability}; at start every range counts as reachable (no evidence yet). Time the
 * core did not run (a pause: a gap between ticks longer than the probe interval) is not counted as
 * waiting for an answer, so a node that was paused itself does not blame its peers for the answers
 * queued behind its pause.
 *
 * <p>Only a hint for leadership, never for safety: quorums are counted as before; a range whose
 * quorum is reachable may still fail its rounds and the reverse. Deterministic: time comes from the
 * core's inputs. Off unless the driver turns it on ({@link NodeCore#watchQuorums}), so a core that
 * never does sends and reports nothing more than before.
 */
final class QuorumWatch {
  private final int self;
  private final long unreachableAfterNanos;
  private final long probeIntervalNanos;
  private final IntPredicate ownsRange;
  private final Incarnation incarnation;
  private Placement placement;

  /** The ranges watched: owned by this core and replicated here, in range order. */
  private List<Integer> watched = List.of();

  /** Per peer of a watched range: the range whose term cell its probes read. */
  private Map<Integer, Integer> probeRange = Map.of();

  /** Per peer: when the oldest request it has not answered since was sent (monotonic). */
  private final Map<Integer, Long> unansweredSince = new HashMap<>();

  /** Per peer: when it last replied, or absent. */
  private final Map<Integer, Long> lastReply = new HashMap<>();

  /** Per peer: when it was last probed, or absent. */
  private final Map<Integer, Long> lastProbe = new HashMap<>();

  /** Per watched range: whether its quorum was reachable when last reported (initially true). */
  private final Map<Integer, Boolean> reported = new TreeMap<>();

  private long lastTickMonoNanos = Long.MIN_VALUE;

  /**
   * @param unreachableAfterNanos how long a request may go unanswered before its peer counts as
   *     unreachable; positive
   * @param ownsRange the ranges whose inputs reach this core (a core shard owns some of the ring's)
   */
  QuorumWatch(
      int self,
      long unreachableAfterNanos,
      IntPredicate ownsRange,
      Incarnation incarnation,
      Placement placement) {
    if (unreachableAfterNanos < 4) {
      throw new IllegalArgumentException(
          "unreachableAfter must be at least 4 ns, was " + unreachableAfterNanos);
    }
    this.self = self;
    this.unreachableAfterNanos = unreachableAfterNanos;
    this.probeIntervalNanos = unreachableAfterNanos / 4;
    this.ownsRange = ownsRange;
    this.incarnation = incarnation;
    placementChanged(placement);
  }

  /** The replica sets are now {@code next}'s: watch its ranges, probe its peers. */
  void placementChanged(Placement next) {
    this.placement = next;
    List<Integer> ranges = new ArrayList<>();
    Map<Integer, Integer> probes = new TreeMap<>();
    for (int r = 0; r < next.rangeCount(); r++) {
      List<Integer> replicas = next.replicas(r);
      if (!ownsRange.test(r) || !replicas.contains(self)) {
        continue;
      }
      ranges.add(r);
      for (int peer : replicas) {
        if (peer != self) {
          probes.putIfAbsent(peer, r);
        }
      }
      reported.putIfAbsent(r, true);
    }
    reported.keySet().retainAll(new TreeSet<>(ranges));
    this.watched = List.copyOf(ranges);
    this.probeRange = probes;
  }

  /** A reply from {@code from}: it reaches this node and this node reaches it. */
  void replied(Now now, int from) {
    if (from == self) {
      return;
    }
    unansweredSince.remove(from);
    lastReply.put(from, now.monoNanos());
  }

  /** Notes every request among {@code effects} sent to a peer as awaiting an answer. */
  void sent(Now now, List<Effect> effects) {
    for (Effect e : effects) {
      if (e instanceof Effect.Send s && s.to() != self && s.message() instanceof Message.Request) {
        unansweredSince.putIfAbsent(s.to(), now.monoNanos());
      }
    }
  }

  /**
   * Probes the peers that have not replied for the probe interval, then reports each watched range
   * whose quorum's reachability changed.
   */
  void tick(Now now, List<Effect> out) {
    long t = now.monoNanos();
    if (lastTickMonoNanos != Long.MIN_VALUE && t - lastTickMonoNanos > probeIntervalNanos) {
      // This core did not run for a while: answers may be queued behind the pause. Waiting time
      // counts from now, as if every unanswered request had just been sent.
      long paused = t - lastTickMonoNanos;
      unansweredSince.replaceAll((peer, since) -> Math.min(t, since + paused));
    }
    lastTickMonoNanos = t;
    for (Map.Entry<Integer, Integer> p : probeRange.entrySet()) {
      int peer = p.getKey();
      if (within(lastReply.get(peer), t) || within(lastProbe.get(peer), t)) {
        continue;
      }
      lastProbe.put(peer, t);
      unansweredSince.putIfAbsent(peer, t);
      out.add(
          new Effect.Send(
              peer,
              new Message.Read(
                  RangeTerm.cellKey(p.getValue()),
                  incarnation.newRoundId(),
                  placement.ringVersion()))); // an older version would only earn a StaleRing
    }
    for (int range : watched) {
      boolean reachable = quorumReachable(range, t);
      if (reported.get(range) != reachable) {
        reported.put(range, reachable);
        out.add(new Effect.QuorumReachability(range, reachable));
      }
    }
  }

  /** Whether {@code at} (null: never) lies less than the probe interval before {@code t}. */
  private boolean within(Long at, long t) {
    return at != null && t - at < probeIntervalNanos;
  }

  private boolean quorumReachable(int range, long t) {
    List<Integer> replicas = placement.replicas(range);
    int reachable = 0;
    for (int id : replicas) {
      if (id == self || !unreachable(id, t)) {
        reachable++;
      }
    }
    return reachable >= CoreConfig.quorum(replicas.size());
  }

  private boolean unreachable(int peer, long t) {
    Long since = unansweredSince.get(peer);
    return since != null && t - since >= unreachableAfterNanos;
  }
}
