package io.frsm.testkit.sim;

import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import java.util.function.BooleanSupplier;

/**
 * A coordination service reduced to one scripted behaviour, for tests that script a lease holder by
 * hand instead of running the simulated service: it renews {@code node}'s term of range 0 every L/4
 * and answers each renewal a fixed delay after it was sent, for as long as a condition holds. The
 * answer carries the node's monotonic time when the renewal was sent, as the real service's does.
 */
final class ScriptedRenewals {
  private static final long ANSWER_DELAY_NANOS = 100_000;

  private ScriptedRenewals() {}

  /**
   * Starts renewing {@code term} for {@code node} now, answered after 100 µs; stops once the node
   * is stopped for good.
   */
  static void renewEvery(Simulation sim, LeaseConfig leases, int node, long term) {
    // An answer reaching a node stopped since it was sent would be dropped by the simulation anyway
    // (a stopped node is down for good), so checking again at the answer changes nothing.
    renewWhile(sim, leases, node, term, ANSWER_DELAY_NANOS, () -> !sim.isStopped(node));
  }

  /**
   * Starts renewing {@code term} for {@code node} now, each renewal answered {@code
   * answerDelayNanos} after it was sent, while {@code stillHeld} says the test has not revoked the
   * term: checked before each renewal and again before its answer, so that no answer reaches the
   * node after the test took the term away (a real agent passes on no renewal of a term it gave
   * up).
   */
  static void renewWhile(
      Simulation sim,
      LeaseConfig leases,
      int node,
      long term,
      long answerDelayNanos,
      BooleanSupplier stillHeld) {
    if (!stillHeld.getAsBoolean()) {
      return;
    }
    long sent = sim.monoNanos(node);
    sim.schedule(
        answerDelayNanos,
        () -> {
          if (stillHeld.getAsBoolean()) {
            sim.input(node, new Input.LeaseRenewed(0, term, sent));
          }
        });
    sim.schedule(
        leases.lease().toNanos() / 4,
        () -> renewWhile(sim, leases, node, term, answerDelayNanos, stillHeld));
  }
}
