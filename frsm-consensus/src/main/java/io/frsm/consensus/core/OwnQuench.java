package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import java.util.List;

/**
 * What a fence or a mutating quorum read does when it prepares again after its own quench (or fence
 * marker) was sent: a retry must not bump the version a second time, or clients see a version that
 * no operation answered and a fence that took effect twice (found by the linearizability workload,
 * seed 4: a fence answered {@code t+2} over its own leftover at {@code t+1}).
 *
 * <ul>
 *   <li>M is this operation's own proposal: re-propose it at its own instance under the new ballot
 *       and answer its version (as a CAS settles its own leftover).
 *   <li>M is ⊥ or has a lower ballot than every own proposal: none of them can have been chosen (a
 *       chosen one would have put a ballot at least as high into every promise quorum), so the
 *       operation starts afresh from M.
 *   <li>Otherwise an own proposal may have been chosen and then overwritten: only the client can
 *       resolve that (with a fence), so the answer is an unknown outcome.
 * </ul>
 */
final class OwnQuench {
  private OwnQuench() {}

  /** Returns true if it decided the run's next step; false: decide afresh from {@code m}. */
  static boolean settle(Run run, Now now, AcceptedValue m, List<Effect> out) {
    if (run.ownProposals.isEmpty()) {
      return false;
    }
    if (m != null && run.isOwn(m)) {
      Outcome answer = new Outcome.ReadResult(Run.visible(m));
      run.accept(now, run.recommit(m), true, run.promisers(), answer, out);
      return true;
    }
    if (m == null || belowEveryOwnBallot(run, m)) {
      return false;
    }
    run.finish(
        new Outcome.Unknown("the key moved on after this operation proposed its quench"), out);
    return true;
  }

  private static boolean belowEveryOwnBallot(Run run, AcceptedValue m) {
    for (AcceptedValue own : run.ownProposals) {
      if (m.accepted().compareTo(own.accepted()) >= 0) {
        return false;
      }
    }
    return true;
  }
}
