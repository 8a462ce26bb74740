package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link Input.PlacementChanged} in a running cluster (docs/PROTOCOL.md "Placement changes"): the
 * same placement sent again mid-run changes nothing at all, and a run in flight when the replica
 * set changes finishes with the set it started with while later runs use the new one.
 */
class PlacementChangeSimulationTest {
  private static final int SEEDS = 40;

  /** Mid-run: the workloads start their faults and clients within the first few hundred ms. */
  private static final long MID_RUN_NANOS = 600_000_000L;

  private static final Key KEY = Key.of("moved".getBytes(StandardCharsets.US_ASCII));

  @Test
  void identicalPlacement_resentMidRun_sameTraceAndHistory() {
    long fed = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      Simulation[] resent = new Simulation[3];
      assertEquals(
          CounterWorkload.run(seed, false, sim -> {}),
          CounterWorkload.run(seed, false, sim -> resendItsPlacement(resent, 0, sim)),
          "counter workload, seed " + seed);
      assertEquals(
          CounterWorkload.run(seed, true, sim -> {}),
          CounterWorkload.run(seed, true, sim -> resendItsPlacement(resent, 1, sim)),
          "counter workload with leases, seed " + seed);
      assertEquals(
          LinearizabilityWorkload.run(seed, sim -> {}),
          LinearizabilityWorkload.run(seed, sim -> resendItsPlacement(resent, 2, sim)),
          "linearizability workload, seed " + seed);
      for (Simulation sim : resent) {
        assertTrue(sim.placementChangesFed() > 0, "seed " + seed + ": the change reached a node");
        fed += sim.placementChangesFed();
      }
    }
    System.out.println("placement re-sent to " + fed + " running nodes, every trace unchanged");
  }

  /**
   * Re-sends the simulation's placement mid-run as an equal copy, not the same object (the core
   * must compare, not trust identity); keeps the simulation in {@code sims[i]}.
   */
  private static void resendItsPlacement(Simulation[] sims, int i, Simulation sim) {
    sims[i] = sim;
    Placement p = sim.coreConfig().placement();
    List<Long> ends = new ArrayList<>();
    List<List<Integer>> sets = new ArrayList<>();
    for (int range = 0; range < p.rangeCount(); range++) {
      ends.add(p.endToken(range));
      sets.add(new ArrayList<>(p.replicas(range)));
    }
    sim.changePlacementAt(MID_RUN_NANOS, Placement.of(ends, sets));
  }

  /**
   * Before ring versions the run in flight finished at its old set (node 2 took its hedge). Now
   * node 2, which installed version 1, refuses that hedge, and the run prepares again at the new
   * set.
   */
  @Test
  void runInFlight_isRefusedAtItsOldRingVersion_preparesAgainAtTheNewSet_laterRunsUseIt() {
    Simulation sim =
        new Simulation(5, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    Version v0 =
        assertInstanceOf(Outcome.Written.class, call(sim, new Operation.Create(KEY, b("a"))))
            .version(); // node 0 is warm; its accept quorum is {0, 1}
    // Node 1 loses node 0's accepts: the warm CAS needs its hedge to node 2 for a quorum.
    sim.setFilter((from, to, m) -> from == 0 && to == 1 && m instanceof Message.Accept);
    Outcome[] inFlight = {null};
    sim.submit(0, new Operation.Cas(KEY, v0, b("b")), o -> inFlight[0] = o);
    Set<Integer> sentToAfterChange = recordRoundTargets(sim);
    // Node 2 leaves the key's replica set at ring version 1.
    sim.changePlacement(Placement.single(List.of(0, 1)).atVersion(1));
    sim.runUntil(
        () -> sim.stats(0).staleRingRefused() > 0,
        sim.nowNanos() + 10_000_000_000L,
        "node 0 refuses its own old round");
    sim.setFilter((from, to, m) -> false);
    sim.runUntil(() -> inFlight[0] != null, sim.nowNanos() + 10_000_000_000L, "in-flight CAS");
    assertEquals(new Outcome.Written(v0.next()), inFlight[0], "its own value, at the new set");
    assertTrue(sim.stats(0).staleRingReplies() > 0);
    assertEquals(Set.of(1), sentToAfterChange, "after the change only the new set {0, 1}");

    sentToAfterChange.clear();
    long coldBefore = sim.stats(0).casCold();
    assertEquals(
        new Outcome.Written(v0.next().next()),
        call(sim, new Operation.Cas(KEY, v0.next(), b("c"))));
    assertEquals(Set.of(1), sentToAfterChange, "a later run uses the new set {0, 1}");
    assertEquals(
        coldBefore,
        sim.stats(0).casCold(),
        "the in-flight CAS was chosen at the new set, so the key is warm there (a key chosen at an"
            + " old set turns cold: PlacementChangeTest)");
  }

  /** The peers node 0 sends prepares, accepts and reads to from now on (itself left out). */
  private static Set<Integer> recordRoundTargets(Simulation sim) {
    Set<Integer> targets = new TreeSet<>();
    sim.setEffectObserver(
        (node, effect) -> {
          if (node == 0
              && effect instanceof Effect.Send s
              && s.to() != 0
              && s.message().key().equals(KEY)
              && (s.message() instanceof Message.Prepare
                  || s.message() instanceof Message.Accept
                  || s.message() instanceof Message.Read)) {
            targets.add(s.to());
          }
        });
    return targets;
  }

  private static Outcome call(Simulation sim, Operation op) {
    sim.runUntilQuiet(sim.nowNanos() + 10_000_000_000L);
    Outcome[] result = {null};
    sim.submit(0, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    return result[0];
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void placementWithOtherRanges_isRefused_andNamesWhatIsAllowed() {
    Simulation sim =
        new Simulation(3, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    Placement twoRanges = Placement.splitAt(List.of(0L), List.of(0, 1, 2)).atVersion(1);
    AssertionError refused =
        assertThrows(AssertionError.class, () -> sim.changePlacement(twoRanges));
    assertTrue(refused.getMessage().contains("must keep the ranges"), refused.getMessage());
  }
}
