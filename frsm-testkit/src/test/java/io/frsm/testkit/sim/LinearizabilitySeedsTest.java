package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Workload (b) over many seeds, cycling through the fault mixes: random get / create / cas / delete
 * / fence on hot keys, every history checked for per-key linearizability (and safety after every
 * step). A failure prints the seed and the checker's explanation and writes the history to {@code
 * target/linearizability/seed-<seed>.jsonl}.
 *
 * <p>{@code -Dfrsm.sim.seed=123} replays one seed; {@code -Dfrsm.sim.linSeeds=N} runs seeds 1..N
 * (default: the CI budget); {@code -Dfrsm.sim.firstSeed=S} shifts the range.
 */
class LinearizabilitySeedsTest {
  /** About 15 s on one core of the 2-core CI machine (2026-11: 2,000 seeds, 340k operations). */
  static final int CI_SEEDS = 2_000;

  @Test
  void randomOperations_everySeed_historyIsLinearizable() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.linSeeds", CI_SEEDS);
    long first = seeds.first();
    long count = seeds.count();
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long operations = 0;
    long unknowns = 0;
    long searchSteps = 0;
    for (long seed = first; seed < first + count; seed++) {
      try {
        LinearizabilityWorkload.Result r = LinearizabilityWorkload.run(seed);
        operations += r.operations();
        unknowns += r.unknowns();
        searchSteps += r.check().searchSteps();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "checked %d seeds from %d in %d ms: %d operations, %d unknown outcomes, %d search steps,"
            + " %d failures%n",
        count,
        first,
        (System.nanoTime() - started) / 1_000_000,
        operations,
        unknowns,
        searchSteps,
        failures.size());
    failures.stream().limit(5).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(3).toList());
  }
}
