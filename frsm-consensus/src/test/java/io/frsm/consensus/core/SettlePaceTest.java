package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SettlePaceTest {
  private static final long MS = 1_000_000L;

  private static int startsWithin(SettlePace pace, long fromNanos, long toNanos, long stepNanos) {
    int started = 0;
    for (long t = fromNanos; t < toNanos; t += stepNanos) {
      while (pace.tryStart(t)) {
        started++;
      }
    }
    return started;
  }

  @Test
  void unpaced_alwaysStarts() {
    SettlePace pace = new SettlePace(0);
    assertFalse(pace.paced());
    for (int i = 0; i < 10_000; i++) {
      assertTrue(pace.tryStart(0));
    }
  }

  @Test
  void paced_startsTheBurstAtOnce_thenOneReadPerInterval() {
    SettlePace pace = new SettlePace(1_000); // one per millisecond, burst 50 ms = 50 reads
    assertTrue(pace.paced());
    assertEquals(50, startsWithin(pace, 0, 1, 1));
    assertFalse(pace.tryStart(0));
    // Ticks every 2 ms: by each tick at most burst + elapsed × rate started, and never far less.
    int started = 50;
    for (long t = 2 * MS; t <= 2_000 * MS; t += 2 * MS) {
      while (pace.tryStart(t)) {
        started++;
      }
      long allowed = 50 + t / MS;
      assertTrue(started <= allowed, started + " started by " + t / MS + " ms");
      assertTrue(started >= allowed - 2, "only " + started + " started by " + t / MS + " ms");
    }
  }

  @Test
  void idleTime_earnsNoMoreThanTheBurst() {
    SettlePace pace = new SettlePace(1_000);
    startsWithin(pace, 0, 1, 1);
    assertEquals(50, startsWithin(pace, 3_600_000 * MS, 3_600_000 * MS + 1, 1), "after an hour");
  }

  @Test
  void aSlowPace_stillStartsOneRead() {
    SettlePace pace = new SettlePace(1); // an interval of 1 s, longer than the burst
    assertEquals(1, startsWithin(pace, 0, 1, 1));
    assertEquals(0, startsWithin(pace, 1, 999 * MS, MS));
    assertEquals(1, startsWithin(pace, 1_000 * MS, 1_000 * MS + 1, 1));
  }

  @Test
  void aNegativePace_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SettlePace(-1));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            CoreConfig.defaults(java.util.List.of(0, 1, 2)).toBuilder()
                .settleKeysPerSecond(-1)
                .build());
  }
}
