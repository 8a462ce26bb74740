package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** A seed is a complete description of a run: hidden non-determinism shows as a hash mismatch. */
class DeterminismTest {
  @Test
  void sameSeedTwice_sameTraceHash() {
    for (long seed : new long[] {3, 11, 42, 1234}) {
      CounterWorkload.Result first = CounterWorkload.run(seed);
      CounterWorkload.Result second = CounterWorkload.run(seed);
      assertEquals(first, second, "seed " + seed);
    }
  }

  @Test
  void differentSeeds_differentTraces() {
    assertNotEquals(CounterWorkload.run(5).traceHash(), CounterWorkload.run(10).traceHash());
  }
}
