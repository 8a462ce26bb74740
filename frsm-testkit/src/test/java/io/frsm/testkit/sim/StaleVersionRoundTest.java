package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.Sabotage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The disjoint quorums two ring versions apart (docs/PROTOCOL.md "The transition rules": {@code
 * {A,B,C}} → {@code {A,B,C,D}} → {@code {A,B,D}}), scripted: node 2 never hears of versions 1–3
 * and, at version 0, runs a CAS over {@code {0, 2}}; node 1 runs a CAS from the same version at
 * version 3 over {@code {1, 3}}. Node 0, which installed version 3, refuses the old round and only
 * node 1's CAS takes effect; with {@link Sabotage#IGNORE_RING_VERSION} it takes both, and the
 * checker sees two values chosen at one instance — what {@link MembershipSabotageTest} finds by
 * chance at seed 282 of its nemesis runs.
 */
class StaleVersionRoundTest {
  private static final Key KEY = Key.of("two-apart".getBytes(StandardCharsets.US_ASCII));

  @Test
  void aRoundOfAVersionTwoBehind_isRefused_soOnlyTheCurrentVersionsCasTakesEffect() {
    Scenario s = new Scenario(Set.of());
    Outcome stale = s.casAt(2, "from-version-0", node -> node == 1);
    assertInstanceOf(Outcome.NotExecuted.class, stale, "node 0 refused the version-0 round");
    assertTrue(s.sim.stats(0).staleRingRefused() > 0);
    assertTrue(s.ringBehind.contains(2), "node 2 learned it is behind");
    Outcome current = s.casAt(1, "from-version-3", node -> node == 0);
    assertEquals(new Outcome.Written(s.created.next()), current);
  }

  @Test
  void ignoringTheRingVersion_letsBothCasesTakeEffect_andIsCaught() {
    Scenario s = new Scenario(Set.of(Sabotage.IGNORE_RING_VERSION));
    assertEquals(
        new Outcome.Written(s.created.next()), s.casAt(2, "from-version-0", node -> node == 1));
    AssertionError caught =
        assertThrows(AssertionError.class, () -> s.casAt(1, "from-version-3", node -> node == 0));
    assertTrue(
        caught.getMessage().contains("two values accepted by a quorum"), caught.getMessage());
  }

  /** Versions 1–3 published and settled with node 2 never told; the key created at version 0. */
  private static final class Scenario {
    final Simulation sim;
    final List<Integer> ringBehind = new ArrayList<>();
    final List<Effect.RangeSettled> settled = new ArrayList<>();
    final Version created;

    Scenario(Set<Sabotage> sabotage) {
      CoreConfig config = Simulation.simConfig(3).toBuilder().sabotage(sabotage).build();
      sim = new Simulation(5, FaultMix.exact(3, 1_000, 100), config, 1_000_000);
      sim.setMembershipAgent(
          new Simulation.MembershipAgent() {
            @Override
            public void emitted(int node, Effect effect) {
              if (effect instanceof Effect.RangeSettled r) {
                settled.add(r);
              } else if (effect instanceof Effect.RingBehind) {
                ringBehind.add(node);
              }
            }

            @Override
            public void started(int node, long ringVersion) {}
          });
      created =
          assertInstanceOf(
                  Outcome.Written.class,
                  call(0, new Operation.Create(KEY, b("created")), node -> false))
              .version();
      Placement v0 = sim.ring().latest();
      int added = sim.addNode();
      Placement v1 = v0.withRange(1, 0, List.of(0, 1, 2), List.of(added));
      Placement v2 = v1.withRange(2, 0, List.of(0, 1, 2, added), List.of());
      Placement v3 = v2.withRange(3, 0, List.of(0, 1, added), List.of());
      for (Placement next : List.of(v1, v2, v3)) {
        sim.publishPlacement(next);
        for (int node : List.of(0, 1, added)) {
          sim.input(node, new Input.PlacementChanged(next));
        }
        if (next != v1) {
          settled.clear();
          sim.input(0, new Input.SettleRange(0, next.ringVersion()));
          sim.runUntil(() -> !settled.isEmpty(), sim.nowNanos() + 1_000_000_000L, "settle");
          assertEquals(List.of(new Effect.RangeSettled(0, next.ringVersion(), true)), settled);
        }
      }
    }

    /**
     * A CAS from the created version at {@code node}, with every message to or from a node {@code
     * cut} accepts dropped.
     */
    Outcome casAt(int node, String value, java.util.function.IntPredicate cut) {
      return call(node, new Operation.Cas(KEY, created, b(value)), cut);
    }

    Outcome call(int node, Operation op, java.util.function.IntPredicate cut) {
      sim.setFilter((from, to, m) -> cut.test(from) || cut.test(to));
      Outcome[] result = {null};
      sim.submit(node, op, o -> result[0] = o);
      sim.runUntil(() -> result[0] != null, sim.nowNanos() + 2_000_000_000L, "reply");
      sim.runUntilQuiet(sim.nowNanos() + 2_000_000_000L);
      return result[0];
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
