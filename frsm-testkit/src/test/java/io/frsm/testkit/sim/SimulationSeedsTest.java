package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Appendix C counter workload over many seeds, cycling through the fault mixes (lossy, crashy,
 * partitioned, chaos, calm; every seventh seed with n = 5). Safety is checked after every step.
 *
 * <p>{@code -Dfrsm.sim.seed=123} replays one seed; {@code -Dfrsm.sim.seeds=N} runs seeds 1..N
 * (default: the CI budget of 2,000); {@code -Dfrsm.sim.firstSeed=S} shifts the range.
 */
class SimulationSeedsTest {
  static final int CI_SEEDS = 2_000;

  @Test
  void counterWorkload_everySeed_noIncrementLostOrDoubled_andSafetyHolds() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.seeds", CI_SEEDS);
    long first = seeds.first();
    long count = seeds.count();
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long increments = 0;
    long unknowns = 0;
    long steps = 0;
    for (long seed = first; seed < first + count; seed++) {
      try {
        CounterWorkload.Result r = CounterWorkload.run(seed);
        increments += r.increments();
        unknowns += r.unknownsResolved();
        steps += r.steps();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "simulated %d seeds from %d in %d ms: %d steps, %d increments, %d unknown outcomes"
            + " resolved by fence, %d failures%n",
        count,
        first,
        (System.nanoTime() - started) / 1_000_000,
        steps,
        increments,
        unknowns,
        failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(5).toList());
  }
}
