package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Membership changes under load and faults (issue 22; docs/PROTOCOL.md "Simulator"): the {@link
 * MembershipNemesis} grows, moves, shrinks and replaces nodes through the {@link
 * MembershipOrchestrator} while the seed's fault mix crashes, partitions, drops and delays, under
 * the counter workload (without and with leases, the lease nemesis included) and the
 * linearizability workload. Safety is checked after every step over each round's ring version.
 *
 * <p>{@code -Dfrsm.sim.membershipSeeds=N} runs N seeds per workload (default: the CI budget below,
 * 2,000 in all); {@code -Dfrsm.sim.seed=S} replays one seed in each.
 */
class MembershipSimulationTest {
  /** Seeds per workload in CI: counter, counter with leases, linearizability. */
  static final int COUNTER_SEEDS = 800;

  static final int LEASE_SEEDS = 400;
  static final int LINEARIZABILITY_SEEDS = 800;

  /** Seeds of the counter workload with leases on nodes running two core shards. */
  static final int SHARDED_SEEDS = 200;

  /** Membership operations started per second of the fault phase (each takes 2 or 3 versions). */
  static final double OPERATIONS_PER_SECOND = 12;

  static final CounterWorkload.MembershipRun RUN =
      new CounterWorkload.MembershipRun(OPERATIONS_PER_SECOND, Set.of());

  @Test
  void counterWorkload_withMembershipChanges_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.membershipSeeds", COUNTER_SEEDS);
    runCounter(seeds, false);
  }

  @Test
  void counterWorkloadWithLeases_withMembershipChanges_noStaleRead_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.membershipSeeds", LEASE_SEEDS);
    runCounter(seeds, true);
  }

  /**
   * Each range in its own core shard: placement changes reach every shard, settles the shard that
   * owns the range (as a production node with {@code consensus.coreThreads} = 2 routes them).
   */
  @Test
  void counterWorkloadWithLeases_twoCoreShards_withMembershipChanges() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.membershipSeeds", SHARDED_SEEDS);
    runCounter(seeds, true, 2);
  }

  private static void runCounter(SeedRange seeds, boolean leases) {
    runCounter(seeds, leases, 1);
  }

  private static void runCounter(SeedRange seeds, boolean leases, int coreShards) {
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long versions = 0;
    long increments = 0;
    long readsChecked = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      try {
        CounterWorkload.Result r =
            CounterWorkload.runWithMembership(seed, leases, Set.of(), RUN, coreShards);
        versions += r.ringVersionsPublished();
        increments += r.increments();
        readsChecked += r.readsChecked();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "membership, counter%s%s: %d seeds in %d ms: %d ring versions published, %d increments,"
            + " %d reads checked, %d failures%n",
        leases ? " with leases" : "",
        coreShards > 1 ? ", " + coreShards + " core shards" : "",
        seeds.count(),
        (System.nanoTime() - started) / 1_000_000,
        versions,
        increments,
        readsChecked,
        failures.size());
    failures.stream().limit(10).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(3).toList());
    if (!seeds.replay()) {
      assertTrue(versions > 2 * seeds.count(), "membership changes happen: " + versions);
    }
  }

  /** A seed is a complete description of a membership run too (the nemesis draws from it). */
  @Test
  void withMembershipChanges_sameSeedTwice_sameTrace() {
    for (long seed : new long[] {2, 7, 626}) {
      for (boolean leases : new boolean[] {false, true}) {
        CounterWorkload.Result first =
            CounterWorkload.runWithMembership(seed, leases, Set.of(), RUN);
        assertTrue(first.ringVersionsPublished() > 0, "seed " + seed + " changes the ring");
        assertEquals(
            first,
            CounterWorkload.runWithMembership(seed, leases, Set.of(), RUN),
            "seed " + seed + (leases ? " with leases" : ""));
      }
      MembershipNemesis[] nemesis = {null};
      assertEquals(
          LinearizabilityWorkload.runWithMembership(
                  seed, OPERATIONS_PER_SECOND, Set.of(), Set.of(), nemesis)
              .traceHash(),
          LinearizabilityWorkload.runWithMembership(
                  seed, OPERATIONS_PER_SECOND, Set.of(), Set.of(), nemesis)
              .traceHash(),
          "linearizability workload, seed " + seed);
    }
  }

  @Test
  void linearizabilityWorkload_withMembershipChanges_historyIsLinearizable() {
    SeedRange seeds =
        SeedRange.fromSystemProperties("frsm.sim.membershipSeeds", LINEARIZABILITY_SEEDS);
    long startedNanos = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long versions = 0;
    long operations = 0;
    long started = 0;
    long completed = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      MembershipNemesis[] nemesis = {null};
      try {
        LinearizabilityWorkload.Result r =
            LinearizabilityWorkload.runWithMembership(
                seed, OPERATIONS_PER_SECOND, Set.of(), Set.of(), nemesis);
        operations += r.operations();
        versions += nemesis[0].orchestrator().versionsPublished();
        started += nemesis[0].started();
        completed += nemesis[0].completed();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "membership, linearizability: %d seeds in %d ms: %d ring versions published, %d of %d"
            + " membership operations completed, %d client operations, %d failures%n",
        seeds.count(),
        (System.nanoTime() - startedNanos) / 1_000_000,
        versions,
        completed,
        started,
        operations,
        failures.size());
    failures.stream().limit(10).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(3).toList());
    if (!seeds.replay()) {
      assertTrue(versions > 2 * seeds.count(), "membership changes happen: " + versions);
      // Liveness of the orchestrator: an operation still running when the run ends is cut short,
      // but most finish (every step installed and settled) despite crashes and partitions.
      assertTrue(2 * completed > started, completed + " of " + started + " operations finished");
    }
  }
}
