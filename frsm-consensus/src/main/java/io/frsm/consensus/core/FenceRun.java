package io.frsm.consensus.core;

import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import java.util.List;
import java.util.Optional;

/**
 * Fence (docs/DESIGN.md "Fence"): a mutating quorum read without the read round. It always writes:
 * the quench (the newest value again at {@code (e, t+1)}), or for ⊥ or a delete a delete marker at
 * {@code (round of its ballot, 0)}. Once it answers version V, nothing expecting an older version
 * can take effect.
 */
final class FenceRun extends Run {
  FenceRun(RunContext context, Input.ClientRequest request) {
    super(context, request);
  }

  @Override
  void start(Now now, List<Effect> out) {
    readLocal();
    prepare(now, out);
  }

  @Override
  void decide(Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
    if (OwnQuench.settle(this, now, m, out)) {
      return;
    }
    if (m != null && !m.isDelete()) {
      Quench.liveValue(this, now, m, mChosen, out);
      return;
    }
    if (!preparedBallotOpensEpoch()) {
      prepare(now, out);
      return;
    }
    long epoch = preparedBallot().round();
    AcceptedValue marker = AcceptedValue.delete(epoch, 0, preparedBallot(), false);
    accept(now, marker, true, promisers(), new Outcome.ReadResult(Optional.empty()), out);
  }

  /** The quench shared by fences and mutating quorum reads. */
  static final class Quench {
    private Quench() {}

    /**
     * Re-proposes live {@code m} at {@code (e, t+1)}: that settles {@code m} and kills any accept
     * still in flight for {@code (e, t+1)}, since a later prepare meets the quench's higher ballot
     * there. Answers {@code m}'s value at the new version.
     */
    static void liveValue(Run run, Now now, AcceptedValue m, boolean mChosen, List<Effect> out) {
      if (run.context.skipQuench()) {
        Outcome answer = new Outcome.ReadResult(Run.visible(m));
        if (mChosen) {
          run.finish(answer, out);
        } else {
          run.accept(now, run.recommit(m), false, run.promisers(), answer, out);
        }
        return;
      }
      if (run.beyondBounds(m.timestamp() + 1, "the quench's timestamp", out)) {
        return; // m.timestamp() <= MAX_NUMBER (InputBounds): the sum cannot overflow
      }
      AcceptedValue quench =
          AcceptedValue.of(
              m.epoch(),
              Math.addExact(m.timestamp(), 1),
              run.preparedBallot(),
              m.kind(),
              m.valueUnsafe(),
              false);
      Outcome answer =
          new Outcome.ReadResult(
              Optional.of(new Versioned(quench.valueCopy(), Run.versionOf(quench))));
      run.accept(now, quench, true, run.promisers(), answer, out);
    }
  }
}
