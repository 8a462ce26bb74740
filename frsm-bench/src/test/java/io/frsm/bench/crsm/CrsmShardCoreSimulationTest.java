package io.frsm.bench.crsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CrsmShardCoreSimulationTest {
  private static final int SEEDS = Integer.getInteger("crsm.sim.seeds", 40);
  private static final long ONLY_SEED = Long.getLong("crsm.sim.seed", -1);
  private static final CrsmSimulation.Faults LOSSY = new CrsmSimulation.Faults(0.1, 0.05, 40);

  @Test
  void lossyNetworkAndLeaderCrash_replicasExecuteTheSameLogAndKeepServing() {
    for (long seed = ONLY_SEED >= 0 ? ONLY_SEED : 1;
        seed <= (ONLY_SEED >= 0 ? ONLY_SEED : SEEDS);
        seed++) {
      CrsmSimulation sim = new CrsmSimulation(seed, LOSSY).run(4_000, 12_000);
      long s = seed;
      assertEquals(
          List.of(), sim.check(), () -> "seed " + s + " (replay: -Dcrsm.sim.seed=" + s + ")");
      assertTrue(sim.answeredAfterCrash() > 0, () -> "seed " + s + ": no progress after the crash");
      for (int n = 0; n < CrsmSimulation.NODES; n++) {
        if (!sim.crashed(n)) {
          assertTrue(sim.executedBy(n) > 0, "seed " + s + ": node " + n + " executed nothing");
        }
      }
    }
  }

  /** Heavy loss and long delays: elections time out and compete, and must still agree. */
  @Test
  void heavyLossAndLongDelays_replicasStillAgree() {
    CrsmSimulation.Faults harsh = new CrsmSimulation.Faults(0.3, 0.1, 120);
    for (long seed = 1; seed <= SEEDS / 2; seed++) {
      CrsmSimulation sim = new CrsmSimulation(seed, harsh).run(3_000, 15_000);
      long s = seed;
      assertEquals(List.of(), sim.check(), () -> "seed " + s);
    }
  }

  @Test
  void sameSeed_sameTrace() {
    long a = new CrsmSimulation(7, LOSSY).run(4_000, 8_000).traceHash();
    long b = new CrsmSimulation(7, LOSSY).run(4_000, 8_000).traceHash();
    assertEquals(a, b);
  }
}
