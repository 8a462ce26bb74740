package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ShardRouting;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The lease workload of {@link LeaseSimulationTest} with every node running several core shards
 * ({@link ShardRouting}, docs/PROTOCOL.md "Core shards"): two shards on even seeds (one range
 * each), three on odd ones (one shard owns no range and only ticks). The lease nemesis, crashes,
 * pauses and partitions act on the node as a whole, as they would on a production process whose
 * cores share one JVM. Every read is checked against what was acknowledged before it; every counter
 * must end exact.
 *
 * <p>{@code -Dfrsm.sim.shardSeeds=N} runs N seeds (default below); {@code -Dfrsm.sim.seed=S}
 * replays one.
 */
class ShardedCoreSimulationTest {
  static final int CI_SEEDS = 300;

  @Test
  void theWorkloadsCounters_liveInBothRanges_soBothShardsWork() {
    // CounterWorkload's lease placement: two ranges split at token 0, keys counter-0..2.
    Placement twoRanges = Placement.splitAt(List.of(0L), List.of(0, 1, 2));
    ShardRouting routing = new ShardRouting(twoRanges, 2);
    Set<Integer> shards = new HashSet<>();
    for (int k = 0; k < 3; k++) {
      shards.add(routing.ofKey(Key.of(("counter-" + k).getBytes(StandardCharsets.US_ASCII))));
    }
    assertEquals(Set.of(0, 1), shards);
    // Some range's term cell has a token in the other range: routing it by token would be wrong.
    boolean someCellElsewhere = false;
    for (int range = 0; range < 2; range++) {
      Key cell = io.frsm.consensus.core.RangeTerm.cellKey(range);
      someCellElsewhere |= twoRanges.rangeOf(cell) != range;
      assertEquals(range, routing.ofKey(cell), "range " + range + "'s term cell");
    }
    assertTrue(someCellElsewhere, "a term cell whose token lies in the other shard's range");
  }

  @Test
  void counterWorkloadWithLeases_onShardedCores_noStaleRead_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.shardSeeds", CI_SEEDS);
    List<String> failures = new ArrayList<>();
    long increments = 0;
    long readsChecked = 0;
    long leaderOnly = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      int shards = seed % 2 == 0 ? 2 : 3;
      try {
        CounterWorkload.Result r =
            CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of(), shards);
        increments += r.increments();
        readsChecked += r.readsChecked();
        leaderOnly += r.leaderOnlyReads();
      } catch (AssertionError e) {
        failures.add(shards + " shards: " + e.getMessage());
      }
    }
    System.out.printf(
        "sharded cores: %d seeds: %d increments, %d reads checked, %d leader-only, %d failures%n",
        seeds.count(), increments, readsChecked, leaderOnly, failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    assertEquals(List.of(), failures.stream().limit(5).toList());
    if (!seeds.replay()) {
      assertTrue(increments > seeds.count(), "increments take effect: " + increments);
      assertTrue(leaderOnly > readsChecked / 10, "leader-only reads happen: " + leaderOnly);
    }
  }

  @Test
  void sameSeedTwice_sameTrace() {
    for (long seed : new long[] {4, 7}) {
      assertEquals(
          CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of(), 2),
          CounterWorkload.runWithLeases(seed, FaultMix.forSeed(seed), Set.of(), 2));
    }
  }
}
