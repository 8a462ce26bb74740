package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import java.util.List;

/**
 * CAS and delete phase 1 (docs/DESIGN.md "Warm CAS", "Cold CAS", "Delete"): write {@code value} (or
 * a delete marker) at {@code (e, t+1)} iff the newest chosen version is {@code expected = (e, t)}
 * and live. A delete's accept goes to all {@code n} replicas and succeeds at {@code q}.
 */
final class CasRun extends Run {
  private final Version expected;

  /** The new value, or null for a delete. */
  private final byte[] value;

  CasRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
    if (request.operation() instanceof Operation.Cas cas) {
      this.expected = cas.expected();
      this.value = cas.value();
    } else {
      this.expected = ((Operation.Delete) request.operation()).expected();
      this.value = null;
    }
  }

  @Override
  void start(Now now, List<Effect> out) {
    Outcome doomed = context.mismatchFromLocalCell(now, key, expected);
    if (doomed != null) {
      servedLocally = true;
      finish(doomed, out); // leader-only mismatch: 0 messages, like a leader-only read
      return;
    }
    Cell local = readLocal();
    WarmKeys.Warm warm = context.warm(key);
    // Warm (1 RTT): this incarnation's last round on the key got q acks with ballot b, the own
    // acceptor still promises b, and its cell is the chosen value of that round at `expected`.
    if (warm != null
        && local != null
        && local.effectivePromise().equals(warm.ballot())
        && local.accepted() != null
        && local.accepted().sameTriple(warm.chosen())
        && !warm.chosen().isDelete()
        && matchesExpected(warm.chosen())
        && !context.forceCold()) {
      propose(now, warm.ballot(), value == null ? set.replicas() : firstQuorum(now), out);
    } else {
      prepare(now, out);
    }
  }

  @Override
  void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
    Ballot b = preparedBallot();
    List<Integer> targets = value == null ? set.replicas() : promisers();
    if (m != null && isOwn(m)) {
      // Our own earlier proposal survived at its instance: settle it under the new ballot.
      AcceptedValue own = recommit(m);
      accept(now, own, true, targets, success(own), out);
      return;
    }
    if (m != null && matchesExpected(m) && !m.isDelete()) {
      // Accepting (e, t+1) also settles M: nothing chosen can sit above the largest accepted part
      // of a promise quorum. Our earlier attempts, if any, were never chosen for the same reason.
      propose(now, b, targets, out);
      return;
    }
    if (!ownProposals.isEmpty()) {
      // Our value may have been chosen and overwritten, or copied under another ballot: only a
      // fence can tell now.
      finish(new Outcome.Unknown("the key moved on after this operation proposed its value"), out);
      return;
    }
    Outcome mismatch = new Outcome.Mismatch(expected, Run.visible(m));
    if (m == null || mChosen) {
      // ⊥ at a promise quorum is definite: nothing below this ballot can be chosen any more.
      finish(mismatch, out);
    } else {
      accept(now, recommit(m), false, targets, mismatch, out);
    }
  }

  @Override
  void onChosen(Now now, Round r, AcceptedValue value, List<Effect> out) {
    if (this.value == null && value.isDelete() && isOwn(value)) {
      // Phase 1 goes on to every replica that stores the key, learners included: a learner that
      // kept an older value while the others purged the delete would bring it back when promoted.
      context.deleteChosen(now, key, set.members(), set.ringVersion(), r, out);
    }
  }

  private void propose(Now now, Ballot ballot, List<Integer> targets, List<Effect> out) {
    long e = expected.epoch();
    long t = Math.addExact(expected.timestamp(), 1);
    AcceptedValue proposal =
        value == null
            ? AcceptedValue.delete(e, t, ballot, false)
            : AcceptedValue.live(e, t, ballot, value, false);
    accept(now, proposal, true, targets, success(proposal), out);
  }

  private Outcome success(AcceptedValue proposal) {
    Version v = Run.versionOf(proposal);
    return value == null ? new Outcome.Deleted(v) : new Outcome.Written(v);
  }

  private boolean matchesExpected(AcceptedValue a) {
    return a.epoch() == expected.epoch() && a.timestamp() == expected.timestamp();
  }
}
