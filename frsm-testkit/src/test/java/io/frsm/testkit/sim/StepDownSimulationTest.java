package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Step-down in the simulator (docs/PROTOCOL.md "Step-down and the quorum watch"): the holder of a
 * range is cut off from both its peers but not from the coordination service, so it keeps renewing
 * its lease and nobody takes over unless it steps down. A client follows the service's holder (as
 * the nodes' routing does) and creates fresh keys of the range until one is written; the wait is
 * bounded by the quorum watch's detection time plus the hand-over: {@code L/2} (unreachable after)
 * + {@code L/8} (probe interval) + the release and grant latencies + at most one successor wait
 * {@code L·(1+ρ)} if the release could not be marked, well inside {@code 2·L}. Without the watch
 * the cut-off holder keeps the range and no write lands in {@code 5·L}: the bound is the watch's
 * doing.
 */
class StepDownSimulationTest {
  private static final long TICK_NANOS = 2_000_000L;
  private static final long L = CounterWorkload.simLeases().lease().toNanos();

  @Test
  void holderCutOffFromItsPeers_stepsDown_andTheRangeIsWritableWithinTwoLeases() {
    long longest = 0;
    for (long seed = 1; seed <= 20; seed++) {
      long gap = cutTheHolderAndWrite(seed, true, 5 * L);
      assertTrue(gap >= 0, "seed " + seed + ": no write within 5·L of the cut");
      assertTrue(
          gap <= 2 * L, "seed " + seed + ": first write " + gap / 1000 + " µs after the cut");
      longest = Math.max(longest, gap);
    }
    System.out.printf(
        "step-down: longest wait for a write after the cut %d µs (L = %d µs)%n",
        longest / 1000, L / 1000);
  }

  @Test
  void withoutTheQuorumWatch_theCutOffHolderKeepsTheRange() {
    for (long seed = 1; seed <= 5; seed++) {
      assertEquals(-1, cutTheHolderAndWrite(seed, false, 5 * L), "seed " + seed);
    }
  }

  /**
   * Runs until range 0 has a holder that has written, cuts that holder from its peers (both ways),
   * and returns how long after the cut the first create of a fresh key of the range was written, or
   * -1 if none was within {@code limitNanos}.
   */
  private static long cutTheHolderAndWrite(long seed, boolean watch, long limitNanos) {
    CoreConfig plain = Simulation.simConfig(3);
    CoreConfig config =
        plain.toBuilder()
            .leases(CounterWorkload.simLeases())
            .placement(Placement.splitAt(List.of(0L), plain.placement().replicas(0)))
            .build();
    Simulation sim = new Simulation(seed, FaultMix.calm(3), config, TICK_NANOS);
    if (watch) {
      sim.watchQuorums(Duration.ofNanos(L / 2));
    }
    LeaseService service = new LeaseService(sim, new SimRandom(seed ^ 0x57E9L));
    service.start();
    Key first = keyOfRange(config.placement(), 0, 0);
    boolean[] written = {false};
    boolean[] asking = {false};
    sim.runUntil(
        () -> {
          int h = service.holder(0);
          if (h >= 0 && !written[0] && !asking[0]) {
            asking[0] = true;
            sim.call(
                h,
                new Operation.Create(first, new byte[] {0}),
                L,
                (outcome, timedOut) -> {
                  asking[0] = false;
                  written[0] |= outcome instanceof Outcome.Written;
                });
          }
          return written[0];
        },
        sim.nowNanos() + 50 * L,
        "range 0 led and written");
    int cutOff = service.holder(0);
    assertNotEquals(-1, cutOff);
    sim.setFilter((from, to, message) -> from != to && (from == cutOff || to == cutOff));
    long cutAt = sim.nowNanos();
    boolean[] landed = {false};
    long[] landedAt = {-1};
    int[] attempt = {1};
    boolean[] inFlight = {false};
    sim.runUntil(
        () -> {
          if (!landed[0] && !inFlight[0]) {
            int h = service.holder(0);
            if (h >= 0) {
              inFlight[0] = true;
              Key fresh = keyOfRange(config.placement(), 0, attempt[0]++);
              sim.call(
                  h,
                  new Operation.Create(fresh, new byte[] {1}),
                  L,
                  (outcome, timedOut) -> {
                    inFlight[0] = false;
                    if (outcome instanceof Outcome.Written && !landed[0]) {
                      landed[0] = true;
                      landedAt[0] = sim.nowNanos();
                    }
                  });
            }
          }
          return landed[0] || sim.nowNanos() - cutAt > limitNanos;
        },
        cutAt + limitNanos + L,
        "a write after the cut");
    System.out.println(
        "seed "
            + seed
            + " cut n"
            + cutOff
            + " at "
            + cutAt / 1000
            + " µs; holder now "
            + service.holder(0)
            + ", step-downs "
            + service.stepDowns()
            + ", attempts "
            + attempt[0]
            + ", "
            + service
            + " t="
            + sim.nowNanos() / 1000);
    sim.close();
    return landed[0] ? landedAt[0] - cutAt : -1;
  }

  /** The {@code n}-th key (in name order) whose token falls in {@code range}. */
  private static Key keyOfRange(Placement placement, int range, int n) {
    int found = 0;
    for (int i = 0; ; i++) {
      Key k = Key.of(("step-down-" + i).getBytes(StandardCharsets.US_ASCII));
      if (placement.rangeOf(k) == range && found++ == n) {
        return k;
      }
    }
  }
}
