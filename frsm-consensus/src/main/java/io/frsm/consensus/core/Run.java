package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * One client operation being coordinated: the rounds it runs (read, prepare, accept), their
 * timeouts, hedging and back-off, and the bounded delay. Subclasses decide what to propose once a
 * prepare has {@code q} promises ({@link #decide}); the outcome after a proposal is chosen is fixed
 * when it is proposed.
 *
 * <p>Not thread-safe: driven by one {@link Coordinator}, one input at a time. A run reaches the
 * core around it only through its {@link RunContext}. Its parts: the replica set it counts quorums
 * over ({@link RunReplicas}), what it learned of the key's ballots ({@link BallotsSeen}) and what a
 * prepare's promises say ({@link PromiseQuorum}).
 */
abstract class Run {
  final RunContext context;
  final long requestId;
  private final Operation operation;
  final Key key;

  /**
   * The replica set of the key's range this run counts its quorums over: taken when the run starts,
   * and again at a prepare after the node installed a newer ring version (a fresh prepare and the
   * accepts that follow it form one round at one set, so a new set there is as good as for a new
   * run).
   */
  RunReplicas set;

  /** {@code τ + T}: no prepare or accept starts after this wall-clock time. */
  private final long deadlineMicros;

  private final BallotsSeen ballots = new BallotsSeen();

  /** Proposals carrying this operation's own new value that were sent (not re-commits). */
  final List<AcceptedValue> ownProposals = new ArrayList<>();

  private Round round;

  /** The range term the current round's prepares or accepts carry (fixed when it starts). */
  private long roundTerm;

  private Outcome answerOnChosen;
  private List<Integer> lastPromisers = List.of();

  /**
   * The voters the ballot of this run's proposals was prepared at: the run's set at its last
   * prepare that got {@code q} promises, or a warm key's prepare set (empty: neither yet). What the
   * key's warm state records when a round is chosen.
   */
  private List<Integer> preparedAt = List.of();

  private boolean backingOff;
  private long resumeAtNanos;
  private boolean done;

  /** For the counters: a prepare or an accept of this operation was sent. */
  private boolean prepareSent;

  private boolean acceptSent;

  /** For the counters: a get answered from the local cell (set just before it finishes). */
  boolean servedLocally;

  Run(RunContext context, Input.ClientRequest request) {
    this.context = context;
    this.requestId = request.requestId();
    this.operation = request.operation();
    this.key = request.operation().key();
    this.set = RunReplicas.current(context, key);
    this.deadlineMicros =
        Math.addExact(request.invokedAtMicros(), context.timings().boundedDelayMicros());
  }

  /** Starts the operation: a read round, a warm accept or a prepare. */
  abstract void start(Now now, List<Effect> out);

  /**
   * The current prepare got {@code q} promises. {@code m} is the largest accepted part among them
   * (null: ⊥); {@code mChosen} says it is known chosen (a promise at its instance carried the
   * flag). Must propose, prepare again or finish.
   */
  abstract void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out);

  /** A reply to this run's read round arrived. Only {@link GetRun} reads. */
  void onReadProgress(Now now, Round read, List<Effect> out) {
    throw new IllegalStateException("no read round in " + getClass().getSimpleName());
  }

  /** The read round timed out. Only {@link GetRun} reads. */
  void onReadTimeout(Now now, Round read, List<Effect> out) {
    throw new IllegalStateException("no read round in " + getClass().getSimpleName());
  }

  /** The accept round {@code r} got {@code q} acks: {@code value} is chosen. */
  void onChosen(Now now, Round r, AcceptedValue value, List<Effect> out) {}

  final boolean done() {
    return done;
  }

  // ---- Rounds ----------------------------------------------------------------------------------

  /** Reads this node's durable cell and learns its rounds and epoch. */
  final Cell readLocal() {
    Cell local;
    try {
      local = context.localCell(key);
    } catch (CellStoreException unreadable) {
      context.forgetWarm(key); // without the local cell the operation runs cold
      return null;
    }
    if (local != null) {
      ballots.learn(local);
      context.sawAccepted(key, local.accepted());
    }
    return local;
  }

  final void read(Now now, List<Effect> out) {
    if (!mayStartRound(now, out)) {
      return;
    }
    round = new Round(context.newRoundId(), Round.Phase.READ, Ballot.NONE, null, now.monoNanos());
    sendTo(now, set.replicas(), out);
    if (context.learnerVotes()) {
      sendTo(now, set.learners(), out);
    }
  }

  /** Prepares a fresh ballot above every round seen, at {@code q} replicas (self first). */
  final void prepare(Now now, List<Effect> out) {
    if (!mayStartRound(now, out) || !holdsRange(now, out)) {
      return;
    }
    if (set.ringVersion() != context.ringVersion()) {
      set = RunReplicas.current(context, key); // a newer ring version came since the run's set
    }
    // The term's floor (docs/PROTOCOL.md "A killed holder: covering its term"): a clock gone back
    // cannot put a ballot of this term among an earlier term's.
    long r = Math.max(ballots.nextRound(now.wallMicros()), context.floorFor(key, roundTerm));
    if (beyondBounds(r, "the key's next ballot round", out)) {
      return;
    }
    Ballot ballot = context.ballot(r);
    ballots.prepared(ballot);
    round = new Round(context.newRoundId(), Round.Phase.PREPARE, ballot, null, now.monoNanos());
    sendTo(now, set.firstQuorum(now, context), out);
    if (context.learnerVotes()) {
      sendTo(now, set.learners(), out);
    }
  }

  /**
   * Sends {@code proposal} (whose accepted ballot is the round's ballot) to {@code targets}; {@code
   * own} marks the operation's own new value. Once {@code q} replicas accepted it, the run answers
   * {@code answer}.
   */
  final void accept(
      Now now,
      AcceptedValue proposal,
      boolean own,
      Collection<Integer> targets,
      Outcome answer,
      List<Effect> out) {
    if (!mayStartRound(now, out) || !holdsRange(now, out)) {
      return;
    }
    if (proposal.accepted().round() < context.floorFor(key, roundTerm)) {
      // A ballot made before this term's floor (a warm CAS's, or a prepare of an earlier term of
      // this node): proposing it now would pass a value of this term off as an older one's.
      prepare(now, out);
      return;
    }
    if (own) {
      ownProposals.add(proposal);
    }
    context.acceptSent(key, requestId);
    answerOnChosen = answer;
    round =
        new Round(
            context.newRoundId(),
            Round.Phase.ACCEPT,
            proposal.accepted(),
            proposal,
            now.monoNanos());
    sendTo(now, targets, out);
    informLearners(now, out);
  }

  /**
   * Learners get a delete's accept round (so delete phase 1 usually finds them holding it) as a
   * message whose reply no round waits for: their acks never count toward a quorum. A live value
   * reaches them by the round's commit alone, a hint (docs/PROTOCOL.md "Learners"): an accept they
   * logged would cost each write a synced write at every learner and two messages, and be evidence
   * of nothing, since no quorum counts it and the promotion's settle re-commits every key whatever
   * a learner holds.
   */
  private void informLearners(Now now, List<Effect> out) {
    if (context.learnerVotes()) {
      sendTo(
          now, set.learners(), out); // the sabotage: learners join the round and their acks count
      return;
    }
    if (!round.proposal.isDelete()) {
      return;
    }
    for (int to : set.learners()) {
      out.add(new Effect.Send(to, request(round)));
    }
  }

  /** The ballot of the last prepare that got a quorum (what cold proposals carry). */
  final Ballot preparedBallot() {
    return ballots.lastPrepared();
  }

  /** A warm CAS proposes {@code warm}'s ballot, prepared at its voters, without a prepare. */
  final void proposesWarm(WarmKeys.Warm warm) {
    preparedAt = warm.preparedAt();
  }

  /** The replicas that promised in the last successful prepare. */
  final List<Integer> promisers() {
    return lastPromisers;
  }

  /** {@code q} replicas for a partial round: see {@link RunReplicas#firstQuorum}. */
  final List<Integer> firstQuorum(Now now) {
    return set.firstQuorum(now, context);
  }

  /**
   * docs/DESIGN.md "Lease invariant" rules 3–4: with leases on, a prepare or accept starts only
   * while this node holds the range's lease and its term is durable at {@code q} replicas.
   * Otherwise the operation waits (re-checked every tick) until that holds or the bounded delay
   * answers it.
   *
   * <p>Except when the wait is in vain — this node gave the range up for good in its term, or no
   * longer competes for it ({@link Input.Candidacy}): then it ends at once. If it proposed nothing
   * of its own it is not executed and marked {@code rangeMoved}, so the node routes it to the
   * range's leader; if it did, its outcome is unknown — the value may have been chosen, and no
   * round of this node can tell any more — and the client hears so now rather than at {@code τ +
   * T}, which is what kept a leader cut off from its peers silent for {@code T} after it stepped
   * down (issue 27). Unknown is always a true answer; the run sends nothing after it.
   */
  private boolean holdsRange(Now now, List<Effect> out) {
    if (context.mayCoordinate(now, key)) {
      roundTerm = context.termFor(key);
      return true;
    }
    context.forgetWarm(key);
    round = null;
    if (context.waitsInVain(now, key)) {
      finish(
          ownProposals.isEmpty()
              ? new Outcome.NotExecuted(
                  "node " + context.nodeId() + " will not coordinate the key's range", true)
              : new Outcome.Unknown(
                  "node "
                      + context.nodeId()
                      + " gave the key's range up after this operation proposed its value"),
          out);
      return false;
    }
    backingOff = true;
    resumeAtNanos = now.monoNanos();
    return false;
  }

  private void sendTo(Now now, Collection<Integer> targets, List<Effect> out) {
    if (round.phase != Round.Phase.READ
        && round.ballot.round() < context.floorFor(key, roundTerm)) {
      throw new IllegalStateException(
          "a "
              + round.phase
              + " of "
              + key
              + " under term "
              + roundTerm
              + " below the term's floor "
              + context.floorFor(key, roundTerm)
              + ": "
              + round.ballot);
    }
    for (int to : targets) {
      if (round.sentTo.add(to)) {
        if (to != context.nodeId()) {
          context.requestSent(to, now.monoNanos());
        }
        out.add(new Effect.Send(to, request(round)));
        countSent(round.phase);
      }
    }
  }

  private void countSent(Round.Phase phase) {
    if (phase == Round.Phase.PREPARE) {
      prepareSent = true;
      context.counters().prepareSent();
    } else if (phase == Round.Phase.ACCEPT) {
      acceptSent = true;
      context.counters().acceptSent();
    }
  }

  /** The accepted part a replica's reply shows (null: none, or a reply that shows none). */
  private static AcceptedValue acceptedOf(Message.Reply reply) {
    if (reply instanceof Message.Promise p) {
      return p.accepted();
    } else if (reply instanceof Message.Reject j) {
      return j.accepted();
    } else if (reply instanceof Message.ReadReply rr) {
      return rr.accepted();
    }
    return null;
  }

  private Message request(Round r) {
    return switch (r.phase) {
      case READ -> new Message.Read(key, r.id, set.ringVersion());
      case PREPARE -> new Message.Prepare(key, r.id, r.ballot, roundTerm, set.ringVersion());
      case ACCEPT -> new Message.Accept(key, r.id, r.proposal, roundTerm, set.ringVersion());
    };
  }

  /** The bounded delay: past {@code τ + T} no round starts and the operation times out. */
  private boolean mayStartRound(Now now, List<Effect> out) {
    if (now.wallMicros() <= deadlineMicros) {
      return true;
    }
    finish(
        endedEarly(
            "bounded delay T expired before the value was proposed",
            "bounded delay T expired after the value was proposed"),
        out);
    return false;
  }

  /**
   * Whether {@code next}, a number this run is about to propose, exceeds {@link
   * InputBounds#MAX_NUMBER}; if so the run ends: not executed, or unknown once it proposed a value
   * of its own (that one may have been chosen). Its peers would refuse any message carrying {@code
   * next}, so no round could succeed. Only a key whose numbers an input planted at the bound gets
   * here: the protocol itself moves rounds and timestamps by one per attempt.
   */
  final boolean beyondBounds(long next, String what, List<Effect> out) {
    if (next <= InputBounds.MAX_NUMBER) {
      return false;
    }
    String reason = what + " would exceed the maximum " + InputBounds.MAX_NUMBER;
    finish(endedEarly(reason, reason), out);
    return true;
  }

  /**
   * The answer of a run that ends before its value is chosen: not executed while it proposed no
   * value of its own, else unknown (that value may have been chosen).
   */
  private Outcome endedEarly(String beforeProposing, String afterProposing) {
    return ownProposals.isEmpty()
        ? new Outcome.NotExecuted(beforeProposing)
        : new Outcome.Unknown(afterProposing);
  }

  final void finish(Outcome outcome, List<Effect> out) {
    assert !done : "finished twice";
    done = true;
    round = null;
    backingOff = false;
    ReadMode readMode = ReadMode.of(operation, outcome, prepareSent, servedLocally);
    if (requestId >= 0) {
      // A range scan's own reads (negative ids) are no client operations: the counters describe
      // what clients asked for, and the driver times only replies it hands to clients.
      context
          .counters()
          .finished(operation, outcome, prepareSent, acceptSent, servedLocally, readMode);
    }
    out.add(new Effect.Reply(requestId, outcome, readMode));
  }

  // ---- Inputs ----------------------------------------------------------------------------------

  final void onReply(Now now, int from, Message.Reply reply, List<Effect> out) {
    if (reply instanceof Message.StaleRing) {
      staleRing(now, from, reply, out);
      return;
    }
    if (done || round == null || !reply.round().equals(round.id) || !round.record(from, reply)) {
      return; // stale, duplicate or unexpected: replies describe durable state, dropping is safe
    }
    ballots.learn(reply);
    context.sawAccepted(key, acceptedOf(reply));
    if (reply instanceof Message.StaleTerm stale) {
      // A replica persisted a newer term for the range: another node leads it now.
      context.termSeen(now, key, stale.term());
      roundFailed(now, out);
      return;
    }
    Round r = round;
    switch (r.phase) {
      case READ -> onReadProgress(now, r, out);
      case PREPARE -> {
        if (reply instanceof Message.Reject) {
          preempted(now, out);
        } else if (r.count(Message.Promise.class) >= set.quorum()) {
          promised(now, r, out);
        }
      }
      case ACCEPT -> {
        if (reply instanceof Message.Reject j && j.promised().compareTo(r.ballot) > 0) {
          preempted(now, out); // a higher ballot was promised: prepare again
        } else if (reply instanceof Message.Reject) {
          // The replica holds a higher instance under a lower ballot: a leftover of a round that
          // lost (it cannot be chosen, our ballot's prepare quorum would have seen it). It cannot
          // take this instance; ask the others at once and fail only if they cannot make q.
          if (now.wallMicros() <= deadlineMicros) {
            sendTo(now, set.replicas(), out);
            r.widened = true;
          }
          if (r.replies.size() == r.sentTo.size()) {
            roundFailed(now, out);
          }
        } else if (r.count(Message.Accepted.class) >= set.quorum()) {
          chosen(now, r, out);
        }
      }
    }
  }

  /**
   * A replica refused this run's round for its ring version: never an acknowledgement, so it is not
   * recorded as a reply. If this node already installed a newer version than the run's, the round
   * fails at once and the next prepare takes the new set; otherwise it is silence (the other
   * replicas may still make the quorum, or the round times out).
   */
  private void staleRing(Now now, int from, Message.Reply reply, List<Effect> out) {
    if (done
        || round == null
        || !reply.round().equals(round.id)
        || !round.sentTo.contains(from)
        || context.ringVersion() == set.ringVersion()) {
      return;
    }
    if (round.phase == Round.Phase.READ) {
      Round r = round;
      round = null;
      onReadTimeout(now, r, out);
    } else {
      roundFailed(now, out);
    }
  }

  final void tick(Now now, List<Effect> out) {
    if (done) {
      return;
    }
    if (round != null) {
      long elapsed = now.monoNanos() - round.startedNanos;
      if (elapsed >= context.timings().roundTimeoutNanos()) {
        if (round.phase == Round.Phase.READ) {
          Round r = round;
          round = null;
          onReadTimeout(now, r, out);
        } else {
          roundFailed(now, out);
        }
      } else if (round.phase == Round.Phase.READ
          && elapsed >= context.timings().hedgeNanos()
          && round.replies.size() >= set.quorum()) {
        // A replica is slow or gone, and the q replies that came could not answer alone
        // (Algorithm 1 needs all n unless q promised our ballot; onReadProgress already tried):
        // go to the mutating read now instead of at the round timeout. Liveness only: the same
        // escalation the timeout makes, earlier.
        Round r = round;
        round = null;
        onReadTimeout(now, r, out);
      } else if (!round.widened
          && elapsed >= context.timings().hedgeNanos()
          && now.wallMicros() <= deadlineMicros) {
        // Hedge: a replica is slow or gone; ask the rest of the set in the same round.
        round.widened = true;
        sendTo(now, set.replicas(), out);
      }
    } else if (backingOff
        && (now.monoNanos() >= resumeAtNanos || now.wallMicros() > deadlineMicros)) {
      backingOff = false;
      prepare(now, out); // past the deadline this answers the timeout instead
    } else if (!backingOff) {
      idleTick(now, out);
    }
  }

  /** A tick while no round runs and no back-off waits (only {@link GetRun} waits otherwise). */
  void idleTick(Now now, List<Effect> out) {}

  /** A replica promised a higher ballot than this run's round: the round fails. */
  private void preempted(Now now, List<Effect> out) {
    if (RangeSettles.isSettleRead(requestId)) {
      context.counters().settleRoundPreempted();
    }
    roundFailed(now, out);
  }

  private void roundFailed(Now now, List<Effect> out) {
    // A round without q acks makes the key cold (docs/DESIGN.md "Warm CAS").
    context.forgetWarm(key);
    round = null;
    backingOff = true;
    resumeAtNanos = now.monoNanos() + context.backoffNanos();
  }

  private void promised(Now now, Round r, List<Effect> out) {
    PromiseQuorum promises = PromiseQuorum.of(r);
    lastPromisers = promises.promisers();
    preparedAt = set.replicas();
    round = null;
    context.prepared(key);
    decide(now, promises.m(), promises.mChosen(), out);
  }

  private void chosen(Now now, Round r, List<Effect> out) {
    AcceptedValue value = r.proposal.withChosen(true);
    context.rememberWarm(key, preparedAt, r.ballot, value);
    context.learnedChosen(key, value, true);
    // Learn: asynchronous, off the reply path; a lost commit costs a later quorum read.
    for (int to : set.members()) {
      out.add(new Effect.Send(to, new Message.Commit(key, value)));
    }
    onChosen(now, r, value, out);
    finish(answerOnChosen, out);
  }

  /** Whether the last prepared ballot may open a new epoch: see {@link BallotsSeen}. */
  final boolean preparedBallotOpensEpoch() {
    return ballots.lastPreparedOpensEpoch();
  }

  // ---- Helpers for subclasses ------------------------------------------------------------------

  /** {@code value} re-proposed at its own instance under the prepared ballot. */
  final AcceptedValue recommit(AcceptedValue value) {
    return value.reballot(preparedBallot()); // keeps the token: a resend must recognise it
  }

  /** Whether {@code m} is one of this operation's own proposals (same instance and ballot). */
  final boolean isOwn(AcceptedValue m) {
    for (AcceptedValue own : ownProposals) {
      if (own.sameTriple(m)) {
        return true;
      }
    }
    return false;
  }

  static Version versionOf(AcceptedValue a) {
    return new Version(a.epoch(), a.timestamp());
  }

  /**
   * The client's view of a chosen accepted part: its value, or empty for a delete or ⊥. The
   * accepted part's own array is handed to {@link Versioned}, whose constructor copies it: a copy
   * made here first was a second copy of every value a read answered (issue 26).
   */
  static Optional<Versioned> visible(AcceptedValue a) {
    return a == null || a.isDelete()
        ? Optional.empty()
        : Optional.of(new Versioned(a.valueUnsafe(), versionOf(a)));
  }
}
