package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import java.util.List;

/**
 * Create (docs/DESIGN.md "Create"): never warm, absence is never decided from local state. The new
 * epoch is the round of the create's own ballot, which must exceed every round and epoch seen in
 * the promises, so competing creates are ordered by ballot and a losing create's leftover never
 * sits above the winner.
 *
 * <p>With an {@link IdempotencyHint} (docs/PROTOCOL.md "Idempotent resends") the proposal carries
 * the token. A create's instance is not known in advance (its epoch is its ballot's round), so a
 * resend recognises its earlier attempt by the token alone: a newest value at timestamp 0 carrying
 * it is answered written. A resend that finds the key present under another value, or deleted, is
 * answered unknown: the earlier attempt may have created the key before it changed.
 */
final class CreateRun extends Run {
  private final byte[] value;

  /** The operation's idempotency hint, or null. */
  private final IdempotencyHint hint;

  CreateRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
    Operation.Create create = (Operation.Create) request.operation();
    this.value = create.value();
    this.hint = create.hint();
  }

  @Override
  void start(Now now, List<Effect> out) {
    readLocal();
    prepare(now, out);
  }

  @Override
  void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
    if (m != null && isOwn(m)) {
      AcceptedValue own = recommit(m);
      accept(now, own, true, promisers(), new Outcome.Written(Run.versionOf(own)), out);
      return;
    }
    if (m != null && isOwnResent(m)) {
      // An earlier attempt of this create is the newest value: answer it, completing it first.
      if (mChosen) {
        finish(new Outcome.Written(Run.versionOf(m)), out);
      } else {
        AcceptedValue own = recommit(m);
        accept(now, own, true, promisers(), new Outcome.Written(Run.versionOf(own)), out);
      }
      return;
    }
    boolean absent = m == null || m.isDelete();
    boolean resend = hint != null && hint.resend();
    if (resend && m != null && ownProposals.isEmpty()) {
      // Present under another value, or deleted: the earlier attempt may have created the key
      // before it changed. "Exists" would be a wrong "not applied", and creating again could
      // apply it twice.
      Outcome superseded =
          new Outcome.Unknown(
              "superseded: the key holds another value or was deleted; this resend's earlier"
                  + " attempt may have been applied and overwritten");
      if (mChosen) {
        finish(superseded, out);
      } else {
        accept(now, recommit(m), false, promisers(), superseded, out);
      }
      return;
    }
    if (!ownProposals.isEmpty() && !(absent && belowOwnProposals(m))) {
      // Our create may have been chosen and then changed or deleted: only a fence can tell.
      finish(new Outcome.Unknown("the key moved on after this create proposed its value"), out);
      return;
    }
    if (!absent) {
      Outcome exists = new Outcome.Exists(Run.visible(m).orElseThrow());
      if (mChosen) {
        finish(exists, out);
      } else {
        accept(now, recommit(m), false, promisers(), exists, out);
      }
      return;
    }
    if (!preparedBallotOpensEpoch()) {
      prepare(now, out); // a promise showed a higher round or epoch: go above it at once
      return;
    }
    long epoch = preparedBallot().round();
    AcceptedValue proposal =
        AcceptedValue.live(
            epoch, 0, preparedBallot(), value, false, hint == null ? null : hint.token());
    accept(now, proposal, true, promisers(), new Outcome.Written(new Version(epoch, 0)), out);
  }

  /** Whether {@code m} is this create's value from an earlier attempt (by its token). */
  private boolean isOwnResent(AcceptedValue m) {
    return hint != null && m.hasToken(hint.token()) && m.timestamp() == 0 && !m.isDelete();
  }

  /** True if {@code m} (⊥ or a delete) is older than every instance this create proposed. */
  private boolean belowOwnProposals(AcceptedValue m) {
    for (AcceptedValue own : ownProposals) {
      if (m != null && m.compareInstance(own) >= 0) {
        return false;
      }
    }
    return true;
  }
}
