package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import java.util.List;

/**
 * Create (docs/DESIGN.md "Create"): never warm, absence is never decided from local state. The new
 * epoch is the round of the create's own ballot, which must exceed every round and epoch seen in
 * the promises, so competing creates are ordered by ballot and a losing create's leftover never
 * sits above the winner.
 */
final class CreateRun extends Run {
  private final byte[] value;

  CreateRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
    this.value = ((Operation.Create) request.operation()).value();
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
    boolean absent = m == null || m.isDelete();
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
    AcceptedValue proposal = AcceptedValue.live(epoch, 0, preparedBallot(), value, false);
    accept(now, proposal, true, promisers(), new Outcome.Written(new Version(epoch, 0)), out);
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
