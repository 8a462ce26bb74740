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
 *
 * <p>With an {@link IdempotencyHint} the proposal carries the token, and the answer rules of
 * docs/PROTOCOL.md "Idempotent resends" apply: the newest value at {@code (e, t+1)} with the
 * operation's own token is answered as written (completed first if it is not known chosen), and a
 * resend that finds the key past {@code (e, t)} under another value is answered unknown, never as a
 * mismatch.
 */
final class CasRun extends Run {
  private final Version expected;

  /** The new value, or null for a delete. */
  private final byte[] value;

  /** The operation's idempotency hint, or null. */
  private final IdempotencyHint hint;

  CasRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
    if (request.operation() instanceof Operation.Cas cas) {
      this.expected = cas.expected();
      this.value = cas.value();
    } else {
      this.expected = ((Operation.Delete) request.operation()).expected();
      this.value = null;
    }
    this.hint = request.operation().hint();
  }

  @Override
  void start(Now now, List<Effect> out) {
    Outcome doomed = context.answerFromLocalCell(now, key, expected, hint);
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
      proposesWarm(warm);
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
    if (m != null && isOwnResent(m)) {
      // An earlier attempt of this mutation (same token) is the newest value at (e, t+1): it was
      // chosen, or a quorum of promises may not know yet. Answer it; complete it first if needed.
      if (mChosen) {
        finish(success(m), out);
      } else {
        AcceptedValue own = recommit(m);
        accept(now, own, true, targets, success(own), out);
      }
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
    Outcome mismatch = refusal(m);
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
            ? AcceptedValue.delete(e, t, ballot, false, token())
            : AcceptedValue.live(e, t, ballot, value, false, token());
    accept(now, proposal, true, targets, success(proposal), out);
  }

  private Outcome success(AcceptedValue proposal) {
    Version v = Run.versionOf(proposal);
    return value == null ? new Outcome.Deleted(v) : new Outcome.Written(v);
  }

  /**
   * The answer when {@code m} (the newest accepted part, or ⊥) is neither {@code expected} nor this
   * operation's own value: a mismatch, unless this is a resend and the key is past {@code
   * expected}, where the earlier attempt may have been chosen and overwritten.
   */
  private Outcome refusal(AcceptedValue m) {
    return refusal(hint, expected, m);
  }

  static Outcome refusal(IdempotencyHint hint, Version expected, AcceptedValue m) {
    if (hint != null && hint.resend() && (m == null || pastExpected(m, expected))) {
      return new Outcome.Unknown(
          "superseded: the key moved past "
              + expected
              + " under another value; this resend's earlier attempt may have been applied and"
              + " overwritten");
    }
    return new Outcome.Mismatch(expected, Run.visible(m));
  }

  /** {@code m}'s instance is at or above {@code (e, t+1)}. */
  private static boolean pastExpected(AcceptedValue m, Version expected) {
    int c = Long.compare(m.epoch(), expected.epoch());
    return c > 0 || (c == 0 && m.timestamp() > expected.timestamp());
  }

  /**
   * Whether {@code m} is this mutation's value from an earlier attempt: it carries the hint's token
   * at {@code (e, t+1)}, the only instance a CAS from {@code expected} ever proposes at.
   */
  private boolean isOwnResent(AcceptedValue m) {
    return isOwnResent(hint, expected, m);
  }

  static boolean isOwnResent(IdempotencyHint hint, Version expected, AcceptedValue m) {
    return hint != null
        && m.hasToken(hint.token())
        && m.epoch() == expected.epoch()
        && m.timestamp() == expected.timestamp() + 1;
  }

  private io.frsm.cell.IdempotencyToken token() {
    return hint == null ? null : hint.token();
  }

  private boolean matchesExpected(AcceptedValue a) {
    return a.epoch() == expected.epoch() && a.timestamp() == expected.timestamp();
  }
}
