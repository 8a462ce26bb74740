package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentCounterWorkload} over many seeds (even seeds with range leases, odd without).
 * {@code -Dfrsm.sim.idemSeeds=N} runs seeds 1..N (default: the CI budget below); {@code
 * -Dfrsm.sim.firstSeed=S} shifts the range.
 */
class IdempotentResendSimulationTest {
  static final int CI_SEEDS = 100;

  @Test
  void resends_areAnsweredTruthfully_andNoTokenIsAppliedTwice() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.idemSeeds", CI_SEEDS);
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long increments = 0;
    long resends = 0;
    long written = 0;
    long mismatch = 0;
    long superseded = 0;
    long fenced = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      try {
        IdempotentCounterWorkload.Result r = IdempotentCounterWorkload.run(seed);
        increments += r.increments();
        resends += r.resends();
        written += r.resendsWritten();
        mismatch += r.resendsMismatch();
        superseded += r.resendsSuperseded();
        fenced += r.resolvedByFence();
      } catch (AssertionError e) {
        failures.add("seed " + seed + ": " + e.getMessage());
      }
    }
    System.out.printf(
        "idempotent resends: %d seeds in %d ms: %d increments, %d resends (%d answered written,"
            + " %d mismatch, %d superseded), %d resolved by fence, %d failures%n",
        seeds.count(),
        (System.nanoTime() - started) / 1_000_000,
        increments,
        resends,
        written,
        mismatch,
        superseded,
        fenced,
        failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(5).toList());
    if (seeds.count() >= CI_SEEDS) {
      // The workload must exercise the rules it checks, not pass by never resending.
      assertTrue(written > 0, "no resend was answered written");
      assertTrue(superseded + mismatch > 0, "no resend found the key moved on");
    }
  }
}
