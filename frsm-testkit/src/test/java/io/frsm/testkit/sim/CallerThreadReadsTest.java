package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.ReadGate;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Leader-only reads on the caller's thread ({@code CallerThreadReads}) under the lease workload:
 * every read tries that path first, its three steps interleaved with the core's steps, and every
 * read is checked against what was acknowledged before it was invoked. {@link LeaseSimulationTest}
 * runs the path on half of its seeds too; this test runs it on every seed of a smaller budget and
 * shows the read checker catches a gate that forgets part of what the core tells it.
 */
class CallerThreadReadsTest {
  private static final int SEEDS = 300;

  /** A stops-at-first-catch budget: the gate that keeps a lease end is caught at seed 112. */
  private static final int TEETH_SEEDS = 4_000;

  @Test
  void everyReadTriesTheCallersThread_noStaleRead_noIncrementLostOrDoubled() {
    List<String> failures = new ArrayList<>();
    long onCallers = 0;
    long checked = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      try {
        CounterWorkload.Result r =
            CounterWorkload.runWithTamperedCallerReads(seed, FaultMix.forSeed(seed), g -> g);
        onCallers += r.callerThreadReads();
        checked += r.readsChecked();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "caller-thread reads: %d seeds, %d reads checked, %d served on the caller's thread, %d"
            + " failures%n",
        SEEDS, checked, onCallers, failures.size());
    assertEquals(List.of(), failures.stream().limit(5).toList());
    assertTrue(onCallers > checked / 10, "the path serves reads: " + onCallers + " of " + checked);
  }

  /**
   * A gate that drops {@code unsettled()} serves a stale read where the leader learned a value its
   * own cell lacks: a scripted run, since the random workload reached that state at only one seed
   * in 2,427 (and at none of the first 4,000 once doomed CAS on a key catching up were answered by
   * the leader without a prepare, which changed every trace). The leader's own acceptor misses the
   * CAS's accept and its commit to itself, so the value is chosen by the two followers and the
   * leader's cell still holds the old one when the client, told "written", reads. A correct gate
   * keeps the key off the caller's thread until the cell caught up; the broken one serves the old
   * value, after the write was acknowledged.
   */
  @Test
  void aGateThatMissesUnsettledKeys_servesAStaleRead_aCorrectOneDoesNot() {
    assertEquals("x1", readAfterAcknowledgedWrite(gate -> gate));
    assertEquals(
        "x0",
        readAfterAcknowledgedWrite(
            gate ->
                new Forwarding(gate) {
                  @Override
                  public void unsettled(Key key) {}
                }));
  }

  /** What a get at the leader returns right after a CAS to "x1" the leader's cell missed. */
  private static String readAfterAcknowledgedWrite(UnaryOperator<ReadGate> tamper) {
    LeaseConfig leases = LeaseConfig.defaults();
    Simulation sim =
        new Simulation(
            1,
            FaultMix.exact(3, 100, 50),
            Simulation.simConfig(3).toBuilder().leases(leases).build(),
            1_000_000);
    sim.serveReadsOnCallerThreads(tamper);
    sim.setLeaseAgent((node, effect) -> {});
    sim.input(0, new Input.TermGranted(0, 1, true));
    ScriptedRenewals.renewEvery(sim, leases, 0, 1);
    sim.runUntil(() -> sim.rangeScansCompleted(0) == 1, 10_000_000_000L, "term and scan");
    Key key = Key.of("k".getBytes(StandardCharsets.US_ASCII));
    Version v0 =
        assertInstanceOf(Outcome.Written.class, call(sim, new Operation.Create(key, b("x0"))))
            .version();
    long settleUntil = sim.nowNanos() + 20_000_000L; // the commits land everywhere
    sim.runUntil(() -> sim.nowNanos() >= settleUntil, settleUntil + 1, "time to pass");
    long served = sim.callerThreadReads();
    assertInstanceOf(Outcome.ReadResult.class, call(sim, new Operation.Get(key)));
    assertEquals(
        served + 1, sim.callerThreadReads(), "a settled key is read on the caller's thread");
    sim.setLocalFilter((from, to, m) -> m instanceof Message.Accept || m instanceof Message.Commit);
    assertInstanceOf(Outcome.Written.class, call(sim, new Operation.Cas(key, v0, b("x1"))));
    Outcome.ReadResult read =
        assertInstanceOf(Outcome.ReadResult.class, call(sim, new Operation.Get(key)));
    return new String(read.value().orElseThrow().value(), StandardCharsets.US_ASCII);
  }

  private static Outcome call(Simulation sim, Operation op) {
    Outcome[] result = {null};
    sim.submit(0, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply to " + op);
    return result[0];
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void aGateThatMissesTheEndOfALease_isCaught() {
    assertCaught(
        "keeps the last servable lease end",
        gate ->
            new Forwarding(gate) {
              @Override
              public void range(int range, long term, long modeEntry, long until) {
                if (until != Long.MIN_VALUE) {
                  super.range(range, term, modeEntry, until);
                }
              }
            });
  }

  private static void assertCaught(String what, UnaryOperator<ReadGate> tamper) {
    for (long seed = 1; seed <= TEETH_SEEDS; seed++) {
      try {
        CounterWorkload.runWithTamperedCallerReads(seed, FaultMix.forSeed(seed), tamper);
      } catch (AssertionError caught) {
        System.out.println("a gate that " + what + " caught at seed " + seed + ": " + caught);
        assertTrue(caught.getMessage().contains("seed " + seed), "names its seed");
        return;
      }
    }
    throw new AssertionError("a gate that " + what + " not caught in " + TEETH_SEEDS + " seeds");
  }

  /** Passes every call on; teeth tests override what their broken gate forgets. */
  private static class Forwarding implements ReadGate {
    private final ReadGate gate;

    Forwarding(ReadGate gate) {
      this.gate = gate;
    }

    @Override
    public void unsettled(Key key) {
      gate.unsettled(key);
    }

    @Override
    public void settled(Key key) {
      gate.settled(key);
    }

    @Override
    public void range(int range, long term, long modeEntry, long until) {
      gate.range(range, term, modeEntry, until);
    }
  }
}
