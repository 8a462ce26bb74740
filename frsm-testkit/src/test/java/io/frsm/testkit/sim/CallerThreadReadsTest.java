package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import io.frsm.consensus.core.ReadGate;
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

  /**
   * A stops-at-first-catch budget: the gate that drops unsettled() is caught at seed 2,427 since
   * the lease agents step down and pause renewals as the node does (772 before), the other at 112.
   */
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

  @Test
  void aGateThatMissesUnsettledKeys_isCaught() {
    assertCaught(
        "drops unsettled()",
        gate ->
            new Forwarding(gate) {
              @Override
              public void unsettled(Key key) {}
            });
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
