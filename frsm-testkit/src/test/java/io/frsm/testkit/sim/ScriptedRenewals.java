package io.frsm.testkit.sim;

import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;

/**
 * A coordination service reduced to one scripted behaviour, for tests that script a lease holder by
 * hand instead of running the simulated service: it renews {@code node}'s term of range 0 every L/4
 * and answers each renewal 100 µs after it was sent, for as long as the node runs. The answer
 * carries the node's monotonic time when the renewal was sent, as the real service's does.
 */
final class ScriptedRenewals {
  private static final long ANSWER_DELAY_NANOS = 100_000;

  private ScriptedRenewals() {}

  /** Starts renewing {@code term} for {@code node} now; stops once the node is stopped. */
  static void renewEvery(Simulation sim, LeaseConfig leases, int node, long term) {
    if (sim.isStopped(node)) {
      return;
    }
    long sent = sim.monoNanos(node);
    sim.schedule(ANSWER_DELAY_NANOS, () -> sim.input(node, new Input.LeaseRenewed(0, term, sent)));
    sim.schedule(leases.lease().toNanos() / 4, () -> renewEvery(sim, leases, node, term));
  }
}
