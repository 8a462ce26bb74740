package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression for the first bug the simulator found (seeds 28, 333, 1533, 1808 and 1938 of the first
 * fault mixes): a proposal that reached only its own node at {@code t+1} under a low ballot must
 * not outrank the value a higher ballot chose at {@code t}. Choosing M by instance first
 * resurrected the replaced value and lost an increment.
 */
class OrphanLeftoverTest {
  private static final Key KEY = Key.of("orphan".getBytes(StandardCharsets.US_ASCII));

  @Test
  void lowBallotLeftoverAboveChosenValue_isNotResurrected() {
    Simulation sim =
        new Simulation(7, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    Version v0 =
        assertInstanceOf(Outcome.Written.class, run(sim, 0, new Operation.Create(KEY, b("x"))))
            .version();

    // Node 1 fences, but its accepts never leave it: its quench of "x" stays a leftover above v0.
    sim.setFilter((from, to, m) -> from == 1 && to != 1 && m instanceof Message.Accept);
    assertInstanceOf(Outcome.Unknown.class, run(sim, 1, new Operation.Fence(KEY)));
    sim.setFilter((from, to, m) -> false);

    // Node 2, with a higher ballot, chooses "y" at v0 + 1 on nodes 2 and 0.
    sim.setFilter((from, to, m) -> (from == 1 || to == 1) && from != to);
    Outcome cas = run(sim, 2, new Operation.Cas(KEY, v0, b("y")));
    assertEquals(new Outcome.Written(v0.next()), cas);
    sim.setFilter((from, to, m) -> false);

    // Node 1 fences again: its promise quorum {1, 2} holds its leftover "x" at a higher instance
    // under a lower ballot, and "y" under the higher ballot. "y" is the chosen value.
    Outcome.ReadResult fence =
        assertInstanceOf(Outcome.ReadResult.class, run(sim, 1, new Operation.Fence(KEY)));
    assertEquals("y", new String(fence.value().orElseThrow().value(), StandardCharsets.US_ASCII));
  }

  private static Outcome run(Simulation sim, int node, Operation op) {
    sim.runUntilQuiet(sim.nowNanos() + 10_000_000_000L);
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply to " + op);
    return result[0];
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
