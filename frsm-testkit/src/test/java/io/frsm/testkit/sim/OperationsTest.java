package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The API semantics of docs/DESIGN.md "Operations", end to end over a 3-node simulated cluster. */
class OperationsTest {
  private static final Key KEY = Key.of("op".getBytes(StandardCharsets.US_ASCII));
  private Simulation sim;

  @BeforeEach
  void setUp() {
    sim = new Simulation(3, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
  }

  private Outcome run(int node, Operation op) {
    sim.runUntilQuiet(sim.nowNanos() + 10_000_000_000L);
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    return result[0];
  }

  private Version create(String value) {
    return assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(KEY, b(value))))
        .version();
  }

  @Test
  void get_ofNeverCreatedKey_isAbsent() {
    assertEquals(new Outcome.ReadResult(Optional.empty()), run(1, new Operation.Get(KEY)));
  }

  @Test
  void create_ofExistingKey_failsWithTheChosenValue() {
    Version v = create("a");
    Outcome.Exists exists =
        assertInstanceOf(Outcome.Exists.class, run(2, new Operation.Create(KEY, b("b"))));
    assertEquals(new Versioned(b("a"), v), exists.current());
    assertEquals(0, v.timestamp());
  }

  @Test
  void cas_withStaleVersion_failsWithTheCurrentValue() {
    Version v0 = create("a");
    assertEquals(new Outcome.Written(v0.next()), run(0, new Operation.Cas(KEY, v0, b("b"))));
    Outcome.Mismatch m =
        assertInstanceOf(Outcome.Mismatch.class, run(1, new Operation.Cas(KEY, v0, b("c"))));
    assertEquals(Optional.of(new Versioned(b("b"), v0.next())), m.current());
  }

  @Test
  void delete_thenGetIsAbsent_casExpectingTheDeleteFails_andCreateOpensAHigherEpoch() {
    Version v0 = create("a");
    Outcome.Deleted deleted =
        assertInstanceOf(Outcome.Deleted.class, run(1, new Operation.Delete(KEY, v0)));
    assertEquals(v0.next(), deleted.version());
    assertEquals(new Outcome.ReadResult(Optional.empty()), run(2, new Operation.Get(KEY)));
    Outcome.Mismatch m =
        assertInstanceOf(
            Outcome.Mismatch.class, run(0, new Operation.Cas(KEY, deleted.version(), b("x"))));
    assertEquals(Optional.empty(), m.current());
    Version again =
        assertInstanceOf(Outcome.Written.class, run(2, new Operation.Create(KEY, b("b"))))
            .version();
    assertTrue(again.epoch() > v0.epoch());
    assertEquals(0, again.timestamp());
  }

  @Test
  void fence_bumpsTheVersion_soAnOlderCasFails() {
    Version v0 = create("a");
    Outcome.ReadResult fenced =
        assertInstanceOf(Outcome.ReadResult.class, run(1, new Operation.Fence(KEY)));
    assertEquals(new Versioned(b("a"), v0.next()), fenced.value().orElseThrow());
    assertInstanceOf(Outcome.Mismatch.class, run(0, new Operation.Cas(KEY, v0, b("late"))));
  }

  @Test
  void fence_onAbsentKey_writesADeleteMarkerAtANewEpoch_andCreateStillWorks() {
    assertEquals(new Outcome.ReadResult(Optional.empty()), run(1, new Operation.Fence(KEY)));
    Version v = create("a");
    assertEquals(0, v.timestamp());
  }

  @Test
  void warmCas_withASlowFollower_hedgesToTheRestOfTheReplicas() {
    Version v0 = create("a"); // node 0 is warm; its accept quorum is {0, 1}
    sim.setFilter((from, to, m) -> from == 0 && to == 1 && m instanceof Message.Accept);
    long start = sim.nowNanos();
    assertEquals(new Outcome.Written(v0.next()), run(0, new Operation.Cas(KEY, v0, b("b"))));
    long hedge = sim.coreConfig().hedgeDelay().toNanos();
    assertTrue(sim.nowNanos() - start >= hedge, "answered after the hedge, from node 2");
    sim.setFilter((from, to, m) -> false);
    assertEquals(
        new Outcome.ReadResult(Optional.of(new Versioned(b("b"), v0.next()))),
        run(2, new Operation.Get(KEY)));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
