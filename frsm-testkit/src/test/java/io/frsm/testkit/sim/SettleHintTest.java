package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.frsm.api.Versioned;
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
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a settle that counted a commit hint (docs/PROTOCOL.md "Membership changes",
 * found by {@link MembershipSabotageTest}'s run of seed 618, where the lost write showed as two
 * values chosen at one instance): a settle read took a key as held by a quorum of the new voters
 * when one of the copies it saw was a commit the replica had taken as an unlogged hint. A crash
 * lost the hint, the key was durable on two of four voters, and the next version, which dropped one
 * of them, lost the write. A settle now re-commits what it finds, so each voter it counts logged
 * it.
 */
class SettleHintTest {
  private static final Key KEY = Key.of("hinted".getBytes(StandardCharsets.US_ASCII));

  @Test
  void settle_countsNoCommitHint_soACrashThatLosesTheHintLosesNoWrite() {
    Simulation sim =
        new Simulation(7, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    List<Effect.RangeSettled> settled = new ArrayList<>();
    sim.setMembershipAgent(
        new Simulation.MembershipAgent() {
          @Override
          public void emitted(int node, Effect effect) {
            if (effect instanceof Effect.RangeSettled s) {
              settled.add(s);
            }
          }

          @Override
          public void started(int node, long ringVersion) {}
        });
    // Chosen by the accepts of {1, 2}; node 0 gets only the commit, which it takes as a hint.
    sim.setFilter((from, to, m) -> to == 0 && m instanceof Message.Accept);
    byte[] value = "v".getBytes(StandardCharsets.US_ASCII);
    Outcome.Written written =
        assertInstanceOf(Outcome.Written.class, call(sim, 1, new Operation.Create(KEY, value)));
    sim.runUntilQuiet(sim.nowNanos() + 1_000_000_000L);
    assertNotNull(sim.durableCell(0, KEY), "node 0 holds the value, as a hint");
    sim.setFilter((from, to, m) -> false);

    // Node 3 joins as a learner (version 1), becomes a voter (version 2); the range is settled.
    Placement v0 = sim.ring().latest();
    int added = sim.addNode();
    Placement v1 = v0.withRange(1, 0, List.of(0, 1, 2), List.of(added));
    Placement v2 = v1.withRange(2, 0, List.of(0, 1, 2, added), List.of());
    sim.changePlacement(v1);
    sim.changePlacement(v2);
    settle(sim, 1, 2, settled);

    // Node 0 crashes and loses its hint; node 1 leaves the range (version 3), which is settled by
    // node 0 while node 2 is cut off, and read there.
    sim.crashAndRestart(0);
    assertNull(sim.durableCell(0, KEY), "the hint is gone with the crash");
    Placement v3 = v2.withRange(3, 0, List.of(0, 2, added), List.of());
    sim.changePlacement(v3);
    sim.setFilter((from, to, m) -> from == 2 || to == 2);
    settle(sim, 0, 3, settled);
    Outcome read = call(sim, 0, new Operation.Get(KEY));
    assertEquals(
        new Outcome.ReadResult(Optional.of(new Versioned(value, written.version()))),
        read,
        "the acknowledged create is read back from a quorum of the new voters");
  }

  private static void settle(
      Simulation sim, int node, long version, List<Effect.RangeSettled> settled) {
    sim.runUntilQuiet(sim.nowNanos() + 1_000_000_000L);
    settled.clear();
    sim.input(node, new Input.SettleRange(0, version));
    sim.runUntil(() -> !settled.isEmpty(), sim.nowNanos() + 1_000_000_000L, "settle");
    assertEquals(List.of(new Effect.RangeSettled(0, version, true)), settled);
  }

  private static Outcome call(Simulation sim, int node, Operation op) {
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 1_000_000_000L, "reply");
    return result[0];
  }
}
