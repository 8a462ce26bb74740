package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The simulator over the real LSM: each node's cells in an {@code LsmEngine} on its own faulty file
 * system (crash = engine killed, unsynced bytes dropped, reopen with commit-log replay), read
 * directly or through the clock cache. Safety after every step and linearizability of the history,
 * as in memory — and the same trace as in memory, seed for seed.
 *
 * <p>{@code -Dfrsm.sim.lsmSeeds=N} runs more seeds.
 */
class LsmStorageSimulationTest {
  /** About 12 s on the CI machine (with the in-memory twin of every seed). */
  static final int CI_SEEDS = 80;

  /** Seeds of the membership run on the LSM (each with its in-memory twin). */
  static final int MEMBERSHIP_SEEDS = 40;

  @Test
  void lsmBackedNodes_randomOperations_linearizableAndSameTraceAsInMemory() {
    long count = Long.getLong("frsm.sim.lsmSeeds", CI_SEEDS);
    long started = System.nanoTime();
    long operations = 0;
    for (long seed = 1; seed <= count; seed++) {
      SimStorage storage = seed % 2 == 0 ? SimStorage.LSM : SimStorage.LSM_CACHED;
      LinearizabilityWorkload.Result onLsm =
          LinearizabilityWorkload.run(seed, FaultMix.forSeed(seed), Set.of(), storage);
      LinearizabilityWorkload.Result inMemory = LinearizabilityWorkload.run(seed);
      assertEquals(inMemory.traceHash(), onLsm.traceHash(), "seed " + seed + " on " + storage);
      assertEquals(inMemory.history(), onLsm.history(), "seed " + seed + " on " + storage);
      operations += onLsm.operations();
    }
    System.out.printf(
        "LSM-backed simulation: %d seeds, %d operations in %d ms%n",
        count, operations, (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Membership changes on the real LSM: nodes added with empty engines, removed nodes stopped,
   * settles reading and re-committing through the engines — the same trace and history as in
   * memory.
   */
  @Test
  void lsmBackedNodes_withMembershipChanges_sameTraceAsInMemory() {
    for (long seed = 1; seed <= MEMBERSHIP_SEEDS; seed++) {
      SimStorage storage = seed % 2 == 0 ? SimStorage.LSM : SimStorage.LSM_CACHED;
      MembershipNemesis[] onLsmNemesis = {null};
      LinearizabilityWorkload.Result onLsm =
          LinearizabilityWorkload.runWithMembership(
              seed,
              MembershipSimulationTest.OPERATIONS_PER_SECOND,
              Set.of(),
              Set.of(),
              storage,
              onLsmNemesis);
      LinearizabilityWorkload.Result inMemory =
          LinearizabilityWorkload.runWithMembership(
              seed,
              MembershipSimulationTest.OPERATIONS_PER_SECOND,
              Set.of(),
              Set.of(),
              new MembershipNemesis[1]);
      assertTrue(onLsmNemesis[0].orchestrator().versionsPublished() > 0, "seed " + seed);
      assertEquals(inMemory.traceHash(), onLsm.traceHash(), "seed " + seed + " on " + storage);
      assertEquals(inMemory.history(), onLsm.history(), "seed " + seed + " on " + storage);
    }
  }

  @Test
  void lsmBackedNodes_sameSeedTwice_sameTrace() {
    long seed = 11; // crashy: exercises kill, crash and commit-log replay
    LinearizabilityWorkload.Result first =
        LinearizabilityWorkload.run(seed, FaultMix.forSeed(seed), Set.of(), SimStorage.LSM_CACHED);
    LinearizabilityWorkload.Result second =
        LinearizabilityWorkload.run(seed, FaultMix.forSeed(seed), Set.of(), SimStorage.LSM_CACHED);
    assertEquals(first.traceHash(), second.traceHash());
  }
}
