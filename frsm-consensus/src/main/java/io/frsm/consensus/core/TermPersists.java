package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.List;

/**
 * Rule 4 of docs/DESIGN.md "Lease invariant": a granted term is persisted at {@code q} replicas of
 * its range before this node accepts anything in it, and only once the successor's wait is over (or
 * the grant said no earlier lease can be in force). The persist's replies also teach the term its
 * predecessor's record (docs/PROTOCOL.md "A killed holder: covering its term"), fixed by the first
 * quorum. A persist unanswered for a round timeout is sent again; so is the re-persist at new
 * voters after a voter change in leader-only mode ({@link LeaseVoterChanges}).
 */
final class TermPersists {
  private final RangeLeases leases;
  private final Incarnation incarnation;
  private final long roundTimeoutNanos;

  /** {@code L·(1+ρ)}, computed once. */
  private final long successorWaitNanos;

  TermPersists(
      RangeLeases leases,
      Incarnation incarnation,
      long roundTimeoutNanos,
      long successorWaitNanos) {
    this.leases = leases;
    this.incarnation = incarnation;
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.successorWaitNanos = successorWaitNanos;
  }

  /**
   * Range {@code range}'s part of a tick: starts the term persist once the successor's wait is
   * over; resends it after a timeout.
   */
  void tick(Now now, int range, RangeLease r, List<Effect> out) {
    if (r.term == 0 || r.givenUp()) {
      return;
    }
    if (r.termPersisted) {
      // Only a re-persist at new voters can be open while the term is persisted: resend it.
      if (r.persistRound != null && now.monoNanos() - r.persistSentMonoNanos >= roundTimeoutNanos) {
        send(now, range, r, out);
      }
      return;
    }
    if (r.persistRound == null) {
      if (r.predecessorsEnded(now, successorWaitNanos)) {
        send(now, range, r, out);
      }
    } else if (now.monoNanos() - r.persistSentMonoNanos >= roundTimeoutNanos) {
      send(now, range, r, out);
    }
  }

  /** Sends {@code r}'s term, in a new round, to every replica of {@code range}. */
  void send(Now now, int range, RangeLease r, List<Effect> out) {
    Placement placement = leases.placement();
    if (placement.learners(range).contains(incarnation.nodeId())) {
      return; // a learner never holds a range: its term is never persisted, so it never leads
    }
    r.persistRound = incarnation.newRoundId();
    r.persistSentMonoNanos = now.monoNanos();
    r.persistAcks.clear();
    Key key = RangeTerm.cellKey(range);
    for (int to : placement.replicas(range)) {
      out.add(
          new Effect.Send(
              to,
              new Message.TermPersist(
                  key, r.persistRound, range, r.term, placement.ringVersion(), r.floorRound)));
    }
  }

  /**
   * A reply on {@code range}'s reserved term key that is neither a stale-term refusal nor a
   * listing: counted if it acknowledges the persist in flight. Returns true when it made the term
   * durable at {@code q} replicas for the first time in the term: the scan may start.
   */
  boolean onReply(int from, int range, RangeLease r, Message.Reply reply) {
    if (!(reply instanceof Message.TermPersisted ack)
        || r.persistRound == null
        || !reply.round().equals(r.persistRound)
        || ack.term() != r.term) {
      return false; // late or for another term
    }
    r.persistAcks.add(from);
    hearPredecessor(r, ack.previous());
    int quorum = CoreConfig.quorum(leases.placement().replicas(range).size());
    if (r.persistAcks.size() >= quorum && r.termPersisted) {
      r.persistRound = null; // a re-persist after a voter change: durable at the new voters too
      return false;
    }
    if (r.persistAcks.size() < quorum) {
      return false;
    }
    r.termPersisted = true;
    r.persistRound = null;
    if (!r.predecessorFixed) {
      // What this first quorum taught is all the scan may use: it classifies from its start.
      r.predecessorFixed = true;
      r.predecessor = r.predecessorConflict ? null : r.heardPredecessor;
    }
    return true;
  }

  /**
   * A persist reply's previous record: kept if it is of term − 1 (any other teaches nothing); two
   * that differ make it unknown (one holder and one floor per term: a bug or a forgery).
   */
  private static void hearPredecessor(RangeLease r, TermRecord previous) {
    if (previous == null || previous.term() != r.term - 1 || r.predecessorFixed) {
      return;
    }
    if (r.heardPredecessor == null) {
      r.heardPredecessor = previous;
    } else if (!r.heardPredecessor.equals(previous)) {
      r.predecessorConflict = true;
    }
  }
}
