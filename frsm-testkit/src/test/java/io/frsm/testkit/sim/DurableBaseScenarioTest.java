package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.testkit.sim.DurableBaseScenario.CrashAt;
import io.frsm.testkit.sim.DurableBases.Mode;
import org.junit.jupiter.api.Test;

/**
 * A restart between two hand-offs ({@link DurableBaseScenario}) with node 0 crashing before,
 * between and after the base's two disk writes: with the flush before the record, the returning
 * node imports only when the record was written, scans otherwise, and serves every key as last
 * acknowledged — including the key whose value it held only as an unlogged commit. The broken
 * orders serve that key stale.
 */
class DurableBaseScenarioTest {
  static final int SEEDS = 20;
  static final int KEYS = 30;
  static final int CHANGED = 8;

  @Test
  void flushThenRecord_crashAtEveryPoint_lastAcknowledgedServed_importOnlyWithTheRecord() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      for (CrashAt at : CrashAt.values()) {
        try (DurableBaseScenario s = new DurableBaseScenario(seed, Mode.FLUSH_THEN_RECORD)) {
          DurableBaseScenario.Run r = s.run(KEYS, CHANGED, at);
          String where = "seed " + seed + ", crash " + at;
          assertEquals(0, r.staleReads(), where + ": " + r.first());
          assertEquals(0, r.readsNotLeaderOnly(), where + ": every read from node 0's cells");
          boolean imports = at == CrashAt.NEVER || at == CrashAt.AFTER_BOTH;
          assertEquals(imports, r.enteredByHandOff(), where + ": entered by the import");
          assertEquals(at == CrashAt.AFTER_BOTH ? 1 : 0, r.restored(), where + ": restored");
          assertFalse(r.recordLeftAfterTheGrant(), where + ": the grant drops the record");
        }
      }
    }
  }

  @Test
  void withoutDurableBases_aRestartedNodeScans() {
    for (long seed = 1; seed <= 5; seed++) {
      try (DurableBaseScenario s = new DurableBaseScenario(seed, Mode.OFF)) {
        DurableBaseScenario.Run r = s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH);
        assertEquals(0, r.staleReads(), "seed " + seed + ": " + r.first());
        assertFalse(r.enteredByHandOff(), "seed " + seed + ": scanned");
      }
    }
  }

  @Test
  void recordBeforeTheFlush_aCrashBetween_servesTheHintedKeyStale() {
    assertCaught(Mode.RECORD_BEFORE_FLUSH, CrashAt.BETWEEN);
  }

  @Test
  void recordWithoutTheFlush_restoredAfterACrashThatLostACommit_servesTheHintedKeyStale() {
    assertCaught(Mode.RECORD_WITHOUT_FLUSH, CrashAt.AFTER_BOTH);
  }

  @Test
  void aRecordNotDroppedAtTheGrant_isLeftOnDisk() {
    try (DurableBaseScenario s = new DurableBaseScenario(1, Mode.NOT_DROPPED_AT_GRANT)) {
      assertTrue(s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH).recordLeftAfterTheGrant());
    }
  }

  private static void assertCaught(Mode mode, CrashAt at) {
    for (long seed = 1; seed <= SEEDS; seed++) {
      try (DurableBaseScenario s = new DurableBaseScenario(seed, mode)) {
        DurableBaseScenario.Run r = s.run(KEYS, CHANGED, at);
        assertTrue(r.enteredByHandOff(), "seed " + seed + ": imported");
        assertTrue(r.staleReads() > 0, "seed " + seed + ": " + mode + " not caught");
      }
    }
  }
}
