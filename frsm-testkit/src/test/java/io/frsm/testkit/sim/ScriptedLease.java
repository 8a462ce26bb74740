package io.frsm.testkit.sim;

import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;

/**
 * Range 0's lease handed out by the test itself, one holder at a time, for scenarios that play the
 * coordination service step by step: {@link #grant} after the predecessor's release mark (no wait),
 * renewed every L/4 ({@link ScriptedRenewals#renewWhile}) until {@link #release}, which also drops
 * any renewal answer still on its way.
 */
final class ScriptedLease {
  /** The hand-off scenarios' renewal round trip. */
  private static final long ANSWER_DELAY_NANOS = 1_000_000;

  private final Simulation sim;
  private final LeaseConfig leases;

  /** The node whose term is being renewed; -1: none (released). */
  private int holder = -1;

  private long heldTerm;

  ScriptedLease(Simulation sim, LeaseConfig leases) {
    this.sim = sim;
    this.leases = leases;
  }

  /** Grants {@code term} to {@code node} after a release mark and renews it until released. */
  void grant(int node, long term) {
    holder = node;
    heldTerm = term;
    sim.input(node, new Input.TermGranted(0, term, true));
    ScriptedRenewals.renewWhile(
        sim, leases, node, term, ANSWER_DELAY_NANOS, () -> holder == node && heldTerm == term);
  }

  /** Stops renewing and has {@code node} release {@code term}. */
  void release(int node, long term) {
    holder = -1;
    sim.input(node, new Input.ReleaseLease(0, term));
  }
}
