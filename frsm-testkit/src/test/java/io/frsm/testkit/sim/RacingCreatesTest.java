package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Creates racing on an absent or deleted key, from every node at once, under message loss and
 * delay: at most one takes effect, every definite answer agrees with the key's final value, and a
 * re-created key's epoch is above the deleted one.
 */
class RacingCreatesTest {
  private static final Key KEY = Key.of("race".getBytes(StandardCharsets.US_ASCII));

  @Test
  void racingCreates_onAbsentAndDeletedKey_atMostOneWins() {
    for (long seed = 1; seed <= 200; seed++) {
      FaultMix mix = seed % 2 == 0 ? FaultMix.lossy(3) : FaultMix.calm(3);
      Simulation sim = new Simulation(seed, mix, Simulation.simConfig(3), 2_000_000);
      sim.startFaults();
      Version first = race(sim, "a");
      sim.stopFaults();
      Outcome.ReadResult before = read(sim);
      // Delete whatever won and race again on the deleted key.
      if (before.value().isPresent()) {
        Outcome[] deleted = {null};
        sim.submit(
            1, new Operation.Delete(KEY, before.value().get().version()), o -> deleted[0] = o);
        sim.runUntil(() -> deleted[0] != null, sim.nowNanos() + 5_000_000_000L, "delete");
        assertInstanceOf(Outcome.Deleted.class, deleted[0], sim.failureMessage("delete"));
      }
      sim.startFaults();
      Version second = race(sim, "b");
      if (first != null && second != null) {
        assertTrue(second.epoch() > first.epoch(), sim.failureMessage("epoch went up"));
      }
    }
  }

  /** Three creates at once, one per node; returns the winner's version, or null if none won. */
  private static Version race(Simulation sim, String prefix) {
    List<Outcome> outcomes = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      byte[] value = (prefix + node).getBytes(StandardCharsets.US_ASCII);
      sim.submit(node, new Operation.Create(KEY, value), outcomes::add);
    }
    sim.runUntil(() -> outcomes.size() == 3, sim.nowNanos() + 5_000_000_000L, "creates");
    sim.stopFaults();
    Outcome.ReadResult now = read(sim);
    Version winner = null;
    int written = 0;
    for (Outcome o : outcomes) {
      if (o instanceof Outcome.Written w) {
        written++;
        winner = w.version();
        // A read may quench (bump the timestamp), never change the epoch or the value.
        assertEquals(
            w.version().epoch(),
            now.value().orElseThrow().version().epoch(),
            sim.failureMessage("winner kept"));
      } else if (o instanceof Outcome.Exists e) {
        assertTrue(now.value().isPresent(), sim.failureMessage("exists but absent"));
        assertEquals(
            new String(e.current().value(), StandardCharsets.US_ASCII),
            new String(now.value().get().value(), StandardCharsets.US_ASCII),
            sim.failureMessage("exists carries the winner"));
      } else {
        assertTrue(
            o instanceof Outcome.Unknown || o instanceof Outcome.NotExecuted,
            sim.failureMessage("unexpected " + o));
      }
    }
    assertTrue(written <= 1, sim.failureMessage(written + " creates won"));
    return winner != null ? winner : now.value().map(v -> v.version()).orElse(null);
  }

  private static Outcome.ReadResult read(Simulation sim) {
    Outcome[] result = {null};
    sim.submit(2, new Operation.Get(KEY), o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 5_000_000_000L, "read");
    return assertInstanceOf(Outcome.ReadResult.class, result[0], sim.failureMessage("read"));
  }
}
