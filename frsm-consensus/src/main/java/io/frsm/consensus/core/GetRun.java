package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import java.util.List;
import java.util.Optional;

/**
 * Linearizable read (docs/DESIGN.md "Quorum read", "Mutating quorum read"; paper Algorithm 1).
 * Reads clocks from all {@code n}; answers without writing iff the largest accepted part M is
 * chosen and either {@code q} replies show this node's own current ballot as their promise or all
 * {@code n} replied. Otherwise a mutating quorum read: prepare, then quench live M at {@code (e,
 * t+1)}, or settle a delete and answer absent.
 */
final class GetRun extends Run {
  /** Asked for a quorum read ({@link Operation.Get#quorum}): never served from the local cell. */
  private final boolean quorumAsked;

  GetRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
    this.quorumAsked = ((Operation.Get) request.operation()).quorum();
  }

  /**
   * While not negative: this read waits, until this monotonic time at the latest, for the local
   * cell to catch up with a value this node learned chosen (see {@link #start}).
   */
  private long catchUpUntilNanos = -1;

  @Override
  void start(Now now, List<Effect> out) {
    if (settleRead()) {
      prepare(now, out); // a settle writes what it finds at a quorum: see settleRead()
      return;
    }
    if (quorumAsked) {
      read(now, out); // asked for a quorum read: never the local cell, whatever the lease says
      return;
    }
    if (servedLocally(now, out)) {
      return;
    }
    if (!scanRead() && context.onlyCatchingUp(now, key)) {
      // This node just learned a value of the key chosen (typically its own CAS, which this read
      // queued behind) and its commit to itself is on the way: a few steps from now the local
      // cell answers with 0 messages, where a quorum read would cost 2 round trips' messages.
      // Bounded by the hedge delay; then it reads a quorum as before. Waiting moves only the
      // instant the read is served, still inside the operation's interval.
      catchUpUntilNanos = now.monoNanos() + context.timings().hedgeNanos();
    } else {
      read(now, out);
    }
  }

  /** A value this node learned chosen for the key became durable in its local cell. */
  void localCaughtUp(Now now, List<Effect> out) {
    if (catchUpUntilNanos >= 0 && !context.onlyCatchingUp(now, key)) {
      stopWaiting(now, out); // else a newer chosen value is still on its way: wait for that
    }
  }

  @Override
  void idleTick(Now now, List<Effect> out) {
    if (catchUpUntilNanos >= 0 && now.monoNanos() - catchUpUntilNanos >= 0) {
      stopWaiting(now, out);
    }
  }

  private void stopWaiting(Now now, List<Effect> out) {
    catchUpUntilNanos = -1;
    if (!servedLocally(now, out)) {
      read(now, out);
    }
  }

  /** Answers from the local cell if a leader-only read may (0 messages); false otherwise. */
  private boolean servedLocally(Now now, List<Effect> out) {
    Outcome local = context.serveLocally(now, key);
    if (local == null) {
      return false;
    }
    servedLocally = true;
    finish(local, out);
    return true;
  }

  @Override
  void onReadProgress(Now now, Round read, List<Effect> out) {
    AcceptedValue m = null;
    for (Message.Reply r : read.replies.values()) {
      AcceptedValue a = ((Message.ReadReply) r).accepted();
      if (a != null && (m == null || a.compareTo(m) > 0)) {
        m = a;
      }
    }
    int sameTriple = 0;
    boolean markedChosen = false;
    Message.ReadReply own = (Message.ReadReply) read.replies.get(context.nodeId());
    Ballot ownBallot = own != null && context.issued(own.promised()) ? own.promised() : Ballot.NONE;
    int promisedToUs = 0;
    for (Message.Reply r : read.replies.values()) {
      Message.ReadReply rr = (Message.ReadReply) r;
      AcceptedValue a = rr.accepted();
      if (m == null ? a == null : a != null && a.sameTriple(m)) {
        sameTriple++;
      }
      markedChosen |= m != null && a != null && a.sameInstance(m) && a.chosen();
      if (!ownBallot.isNone() && rr.promised().equals(ownBallot)) {
        promisedToUs++;
      }
    }
    boolean chosen = sameTriple >= set.quorum() || markedChosen;
    boolean allReplied = read.replies.size() == set.replicas().size();
    if (chosen && (promisedToUs >= set.quorum() || allReplied)) {
      AcceptedValue local = own == null ? null : own.accepted();
      boolean localKnows = local != null && local.chosen() && m != null && local.sameTriple(m);
      if (m != null && !localKnows && set.replicas().contains(context.nodeId())) {
        // Merge the answer locally as chosen, so the next operation on the key can start warm.
        // (Only on a replica: a node outside the key's replica set never stores the key.)
        out.add(new Effect.Send(context.nodeId(), new Message.Commit(key, m.withChosen(true))));
        context.learnedChosen(key, m.withChosen(true), false);
      }
      finish(new Outcome.ReadResult(Run.visible(m)), out);
    } else if (allReplied) {
      prepare(now, out);
    }
  }

  @Override
  void onReadTimeout(Now now, Round read, List<Effect> out) {
    prepare(now, out);
  }

  /**
   * A read of the core's own range scan (a negative request id: no client waits for it). Its read
   * round follows Algorithm 1 like any other (dropping the promise condition lets an old holder's
   * accept, taken by a replica that answered the read before it persisted the new term, be chosen
   * after the scan: the simulator's lease workload found such stale leader-only reads at once).
   * After a prepare, though, it never quenches: its promise quorum already stops every lower-ballot
   * accept, a value known chosen is simply the answer, and one not known chosen is settled at its
   * own instance. A quench there is a write no client asked for, moving the key's version under the
   * clients (a CAS from the version just read fails with the same value at the next version; found
   * by MultiProcessCrashIT's linearizability check after a leader kill, the scan running with one
   * replica down). A leftover of an old operation one instance up may still be chosen later, by
   * this holder's own rounds: that operation's outcome was unknown, so it may take effect then.
   */
  private boolean scanRead() {
    return requestId < 0 && !settleRead();
  }

  /**
   * A read of a membership change's settle ({@link RangeSettles}): it ends only when the key's
   * newest value M is <em>durably</em> held by a quorum of the run's voters. It prepares a fresh
   * ballot at a quorum of them and, unless every promise shows ⊥, re-commits M at its own instance
   * under that ballot: an accept round, which each voter logs before it acknowledges. It never
   * trusts copies it merely sees: a replica's answer shows a commit it took as a hint (an unlogged
   * write, docs/PROTOCOL.md "Commits are hints") exactly like a logged accept, and a crash loses
   * the hint. Counting such a copy toward the quorum (a read round where a quorum showed one
   * triple, or a quorum of promises holding M, which the first version of the settle took as done)
   * let a value end up durable on fewer than a quorum of the new voters, and a later version that
   * dropped one of them lost it (the membership simulation found it: {@code SettleHintTest}). ⊥ at
   * a quorum of promises needs no write: a value chosen at the previous version sits, logged, on a
   * quorum of its voters, which meets every quorum of these. Like a scan read it never quenches: it
   * answers no client, and must not move a key's version.
   */
  private boolean settleRead() {
    return RangeSettles.isSettleRead(requestId);
  }

  @Override
  void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
    if (settleRead()) {
      Outcome answer = new Outcome.ReadResult(Run.visible(m));
      if (m == null) {
        finish(answer, out); // ⊥ at a promise quorum
      } else {
        accept(now, recommit(m), false, promisers(), answer, out);
      }
      return;
    }
    if (scanRead()) {
      Outcome answer = new Outcome.ReadResult(Run.visible(m));
      if (m == null) {
        finish(answer, out);
      } else if (mChosen) {
        if (set.replicas().contains(context.nodeId())) {
          // Into this node's store, for its leader-only reads (a hint if it holds it already).
          out.add(new Effect.Send(context.nodeId(), new Message.Commit(key, m.withChosen(true))));
          context.learnedChosen(key, m.withChosen(true), false);
        }
        finish(answer, out);
      } else {
        accept(now, recommit(m), false, promisers(), answer, out);
      }
      return;
    }
    if (OwnQuench.settle(this, now, m, out)) {
      return;
    }
    if (m == null) {
      finish(new Outcome.ReadResult(Optional.empty()), out);
    } else if (!m.isDelete()) {
      FenceRun.Quench.liveValue(this, now, m, mChosen, out);
    } else if (mChosen) {
      finish(new Outcome.ReadResult(Optional.empty()), out);
    } else {
      Outcome absent = new Outcome.ReadResult(Optional.empty());
      accept(now, recommit(m), false, promisers(), absent, out);
    }
  }
}
