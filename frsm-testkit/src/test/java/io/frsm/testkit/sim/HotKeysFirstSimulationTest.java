package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Sabotage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Hot keys first under faults (docs/PROTOCOL.md "Hot keys first"): the lease workload with {@link
 * #COLD_KEYS} keys no client touches, so every new holder's scan takes pages of reads while the
 * clients read and increment the counters — the hot set — which their operations pull forward.
 * Every read is checked against what was acknowledged before it, every counter at the end; and a
 * pull that skips its quorum read must be caught.
 *
 * <p>{@code -Dfrsm.sim.hotSeeds=N} runs N seeds (default the CI budget below); {@code
 * -Dfrsm.sim.seed=S} replays one.
 */
class HotKeysFirstSimulationTest {
  static final int CI_SEEDS = 100;
  static final int SABOTAGE_SEEDS = 2_000;

  /** About 150 per range (two ranges): a page each, read 32 at a time over several round trips. */
  static final int COLD_KEYS = 300;

  @Test
  void hotSetWrittenWhileScansRun_everySeed_noStaleRead_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.hotSeeds", CI_SEEDS);
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long pulled = 0;
    long leaderOnly = 0;
    long readsChecked = 0;
    long increments = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      try {
        CounterWorkload.Result r =
            CounterWorkload.runWithLeasesAndColdKeys(
                seed, FaultMix.forSeed(seed), Set.of(), COLD_KEYS);
        pulled += r.keysPulledForward();
        leaderOnly += r.leaderOnlyReads();
        readsChecked += r.readsChecked();
        increments += r.increments();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "hot keys first: %d seeds in %d ms: %d increments, %d reads checked, %d leader-only,"
            + " %d keys pulled forward (live cores), %d failures%n",
        seeds.count(),
        (System.nanoTime() - started) / 1_000_000,
        increments,
        readsChecked,
        leaderOnly,
        pulled,
        failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(5).toList());
    if (!seeds.replay()) {
      assertTrue(pulled > seeds.count(), "operations pull hot keys forward: " + pulled);
    }
  }

  @Test
  void pullWithoutItsQuorumRead_isCaught() {
    Sabotage sabotage = Sabotage.PULL_FORWARD_WITHOUT_READ;
    for (long seed = 1; seed <= SABOTAGE_SEEDS; seed++) {
      try {
        CounterWorkload.runWithLeasesAndColdKeys(
            seed, FaultMix.forSeed(seed), Set.of(sabotage), COLD_KEYS);
      } catch (AssertionError caught) {
        System.out.println(sabotage + " caught at seed " + seed + ": " + caught.getMessage());
        assertTrue(caught.getMessage().contains("seed " + seed), "names its seed");
        return;
      }
    }
    throw new AssertionError(sabotage + " not caught in " + SABOTAGE_SEEDS + " seeds");
  }
}
