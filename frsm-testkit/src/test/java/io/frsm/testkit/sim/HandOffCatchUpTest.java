package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Catch-up of a returning natural leader, hand-off vs scan (issue 23 point 1, docs/BENCHMARKS.md
 * "Hand-off instead of a scan"), in simulated time: {@link HandOffScenario} over one range of
 * {@code frsm.sim.catchUpKeys} keys (default {@link #CI_KEYS}), of which 1 % change while the
 * natural leader is away. Catch-up: from the grant of its new term until it serves the range in
 * leader-only mode — by importing the stand-in's shipment, or (baseline: the shipment never
 * arrives) by its scan. Network one-way delay 0.1–1 ms, persists 20–400 µs (FaultMix "calm"), no
 * faults.
 */
class HandOffCatchUpTest {
  static final int CI_KEYS = 20_000;

  @Test
  void onePercentChanged_handOffCatchesUpFarFasterThanTheScan() {
    int keys = Integer.getInteger("frsm.sim.catchUpKeys", CI_KEYS);
    int changed = Math.max(1, keys / 100);
    long started = System.nanoTime();
    HandOffScenario.Run handOff;
    try (HandOffScenario s = new HandOffScenario(7, Set.of(), true)) {
      handOff = s.run(keys, changed);
    }
    long handOffWall = System.nanoTime() - started;
    started = System.nanoTime();
    HandOffScenario.Run scan;
    try (HandOffScenario s = new HandOffScenario(7, Set.of(), false)) {
      scan = s.run(keys, changed);
    }
    long scanWall = System.nanoTime() - started;
    System.out.printf(
        "catch-up of the returning natural leader, %d keys, %d changed while away,"
            + " simulated time from its grant to leader-only:%n"
            + "  hand-off: %.2f ms (%d keys shipped; the stand-in's drain %.2f ms;"
            + " hand-back start to leader-only %.2f ms) [%d ms wall]%n"
            + "  scan:     %.2f ms (hand-back start to leader-only %.2f ms) [%d ms wall]%n",
        keys,
        changed,
        handOff.catchUpNanos() / 1e6,
        handOff.keysShipped(),
        handOff.drainNanos() / 1e6,
        handOff.handBackNanos() / 1e6,
        handOffWall / 1_000_000,
        scan.catchUpNanos() / 1e6,
        scan.handBackNanos() / 1e6,
        scanWall / 1_000_000);
    assertTrue(handOff.enteredByHandOff());
    assertFalse(scan.enteredByHandOff());
    assertEquals(0, handOff.staleReads(), handOff.first());
    assertEquals(0, scan.staleReads(), scan.first());
    assertTrue(
        handOff.catchUpNanos() * 10 < scan.catchUpNanos(),
        "the hand-off's catch-up scales with what changed, the scan's with the range");
  }
}
