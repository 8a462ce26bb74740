package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.UnsafeRingTransitionException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The orchestrator's order (docs/PROTOCOL.md "Membership changes", rule 4), scripted: version 1
 * drops node 2 from {0, 1, 2}; the watches of nodes 0 and 1 — the new voters — are cut for 50 ms,
 * so no quorum of them can install it before then.
 */
class MembershipOrchestratorTest {
  private static final long CUT_NANOS = 50_000_000L;

  @Test
  void publish_waitsForTheInstallationQuorum_thenSettles_thenFollows() {
    Run run = new Run(Set.of());
    run.sim.runUntil(() -> run.sim.nowNanos() >= CUT_NANOS - 1_000_000, CUT_NANOS, "the cut");
    assertFalse(run.followed[0], "not followed while no quorum of {0, 1} installed version 1");
    assertEquals(0, run.orchestrator.settlesAsked(), "no settle asked before the quorum installed");
    run.sim.runUntil(() -> run.followed[0], 2_000_000_000L, "the step followed");
    assertTrue(run.sim.nowNanos() >= CUT_NANOS);
    assertTrue(run.orchestrator.settlesAsked() >= 1);
  }

  /** Rule 4a skipped: the settle is asked at once, but cannot finish before the quorum installs. */
  @Test
  void skippingTheInstallationWait_asksTheSettleAtOnce_whichStillWaitsForTheQuorum() {
    Run run = new Run(Set.of(MembershipMutation.SKIP_INSTALL_WAIT));
    run.sim.runUntil(() -> run.sim.nowNanos() >= CUT_NANOS - 1_000_000, CUT_NANOS, "the cut");
    assertTrue(run.orchestrator.settlesAsked() >= 1, "asked before the quorum installed");
    assertFalse(run.followed[0], "a settle's listing is answered only by installed replicas");
    run.sim.runUntil(() -> run.followed[0], 2_000_000_000L, "the step followed");
  }

  /** Rule 4b skipped: followed as soon as the quorum installed, nothing settled. */
  @Test
  void skippingTheSettle_followsOnTheInstallationQuorumAlone() {
    Run run = new Run(Set.of(MembershipMutation.SKIP_SETTLE));
    run.sim.runUntil(() -> run.followed[0], 2_000_000_000L, "the step followed");
    assertTrue(run.sim.nowNanos() >= CUT_NANOS);
    assertEquals(0, run.orchestrator.settlesAsked());
  }

  @Test
  void anUnsafeStep_isRefusedBeforeItIsPublished() {
    Simulation sim =
        new Simulation(1, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    MembershipOrchestrator orchestrator =
        new MembershipOrchestrator(sim, new SimRandom(1), null, Set.of());
    Placement v0 = sim.ring().latest();
    assertThrows(
        UnsafeRingTransitionException.class,
        () -> orchestrator.publish(v0.withRange(1, 0, List.of(0), List.of()), () -> {}));
    assertEquals(v0, sim.ring().latest(), "nothing published");
    sim.ring().retire(2);
    assertThrows(
        UnsafeRingTransitionException.class,
        () -> orchestrator.publish(v0.withRange(1, 0, List.of(0, 1), List.of(2)), () -> {}),
        "a retired id never replicates again, not even as a learner");
  }

  /**
   * A three-node cluster publishing version 1 (node 2 dropped) with the new voters' watches cut.
   */
  private static final class Run {
    final Simulation sim =
        new Simulation(1, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    final MembershipOrchestrator orchestrator;
    final boolean[] followed = {false};

    Run(Set<MembershipMutation> mutations) {
      orchestrator = new MembershipOrchestrator(sim, new SimRandom(1), null, mutations);
      orchestrator.cutWatch(0, CUT_NANOS);
      orchestrator.cutWatch(1, CUT_NANOS);
      Placement v0 = sim.ring().latest();
      orchestrator.publish(v0.withRange(1, 0, List.of(0, 1), List.of()), () -> followed[0] = true);
    }
  }
}
