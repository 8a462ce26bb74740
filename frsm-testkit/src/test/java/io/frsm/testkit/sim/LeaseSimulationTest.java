package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Sabotage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The counter workload with range leases on (docs/DESIGN.md "Lease invariant"), under the fault
 * mixes plus the lease nemesis: process pauses longer than the lease, forced handovers (two nodes
 * believe they lead a range), cuts from the coordination service. Clients read counters, many of
 * the reads leader-only, and every read is checked against what was acknowledged before it.
 *
 * <p>{@code -Dfrsm.sim.leaseSeeds=N} runs N seeds (default the CI budget below); {@code
 * -Dfrsm.sim.seed=S} replays one.
 */
class LeaseSimulationTest {
  static final int CI_SEEDS = 1_000;
  static final int SABOTAGE_SEEDS = 5_000;

  @Test
  void counterWorkloadWithLeases_everySeed_noStaleRead_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.leaseSeeds", CI_SEEDS);
    long first = seeds.first();
    long count = seeds.count();
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long leaderOnly = 0;
    long readsChecked = 0;
    long increments = 0;
    long grantsAfterRelease = 0;
    long stepDowns = 0;
    for (long seed = first; seed < first + count; seed++) {
      try {
        CounterWorkload.Result r =
            CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of());
        leaderOnly += r.leaderOnlyReads();
        readsChecked += r.readsChecked();
        increments += r.increments();
        grantsAfterRelease += r.grantsAfterRelease();
        stepDowns += r.stepDowns();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "leases: %d seeds in %d ms: %d increments, %d reads checked, %d leader-only, %d grants"
            + " after a release, %d step-downs, %d failures%n",
        count,
        (System.nanoTime() - started) / 1_000_000,
        increments,
        readsChecked,
        leaderOnly,
        grantsAfterRelease,
        stepDowns,
        failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(5).toList());
    if (!seeds.replay()) {
      assertTrue(leaderOnly > readsChecked / 10, "leader-only reads happen: " + leaderOnly);
      assertTrue(grantsAfterRelease > count, "successors skip the wait: " + grantsAfterRelease);
      assertTrue(
          stepDowns > count / 10, "holders cut off from their peers step down: " + stepDowns);
    }
  }

  @Test
  void withLeases_sameSeedTwice_sameTrace() {
    for (long seed : new long[] {2, 626}) {
      assertEquals(
          CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of()),
          CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of()));
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Sabotage.class,
      names = {
        "SKIP_LEASE_WAIT",
        "SERVE_READ_WITHOUT_LEASE_CHECK",
        "SKIP_RANGE_SCAN",
        "RELEASE_KEEPS_LEASE"
      })
  void brokenLeaseRule_isCaughtWithinTheCiBudget(Sabotage sabotage) {
    // RELEASE_BEFORE_WAIT needs the old holder cut off from every newer term while a second
    // hand-over lands inside the first one's wait: too rare for this budget (it was caught once at
    // seed 4,876); LeaderOnlyReadTest scripts that interleaving instead.
    // Stops at the first catch; the budget is generous because a lease bug needs a rare
    // interleaving (a pause or handover exactly inside the successor's wait).
    for (long seed = 1; seed <= SABOTAGE_SEEDS; seed++) {
      try {
        CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of(sabotage));
      } catch (AssertionError caught) {
        System.out.println(sabotage + " caught at seed " + seed + ": " + caught.getMessage());
        assertTrue(caught.getMessage().contains("seed " + seed), "names its seed");
        return;
      }
    }
    throw new AssertionError(sabotage + " not caught in " + SABOTAGE_SEEDS + " seeds");
  }
}
