package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Sabotage;
import io.frsm.testkit.sim.DurableBases.Mode;
import io.frsm.testkit.sim.KilledHolderScenario.CrashAt;
import java.util.Set;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/**
 * A killed natural leader's return ({@link KilledHolderScenario}; docs/PROTOCOL.md "A killed
 * holder: covering its term", steps 3 and 4). With the rules it imports exactly when its entry base
 * of the killed term was recorded and the stand-in's shipment covers that term, scans otherwise,
 * and serves every key as last acknowledged, leader-only. Each broken rule serves a key stale.
 */
class KilledHolderScenarioTest {
  /** {@code -Dfrsm.sim.killedHolderSeeds=N} runs N seeds of each case (and reports each rate). */
  static final int SEEDS = Integer.getInteger("frsm.sim.killedHolderSeeds", 20);

  static final int KEYS = 300;
  static final int CHANGED = 8;

  @Test
  void killedAtEveryPointOfTheEntryBase_importsOnlyWithTheRecord_lastAcknowledgedServed() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      for (CrashAt at : CrashAt.values()) {
        try (KilledHolderScenario s =
            new KilledHolderScenario(seed, Mode.FLUSH_THEN_RECORD, Set.of())) {
          KilledHolderScenario.Run r = s.run(KEYS, CHANGED, at, false, false);
          String where = "seed " + seed + ", killed " + at;
          assertTrue(r.shipmentCovered(), where + ": node 1's shipment covers term 2");
          assertEquals(0, r.staleReads(), where + ": " + r.first());
          assertEquals(0, r.readsNotLeaderOnly(), where + ": every read from node 0's cells");
          assertEquals(at == CrashAt.AFTER_BOTH, r.enteredByImport(), where + ": by import");
          assertEquals(at == CrashAt.AFTER_BOTH ? 1 : 0, r.entryBasesRestored(), where);
        }
      }
    }
  }

  /**
   * A key node 0 wrote in its killed term without its own acceptor: the covering shipment names it
   * and the import brings it.
   */
  @Test
  void aKeyChosenInTheKilledTermWithoutTheHolder_isBroughtByTheCoveringShipment() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      try (KilledHolderScenario s =
          new KilledHolderScenario(seed, Mode.FLUSH_THEN_RECORD, Set.of())) {
        KilledHolderScenario.Run r = s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH, true, false);
        String where = "seed " + seed;
        assertTrue(r.shipmentCovered(), where + ": covers term 2");
        assertTrue(r.enteredByImport(), where + ": by import");
        assertEquals(0, r.staleReads(), where + ": " + r.first());
        assertEquals(0, r.readsNotLeaderOnly(), where);
      }
    }
  }

  /** A shipment made before the stand-in's scan completed covers nothing: refused, node 0 scans. */
  @Test
  void aShipmentThatDoesNotCoverTheKilledTerm_isRefused_theNodeScans() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      try (KilledHolderScenario s =
          new KilledHolderScenario(seed, Mode.FLUSH_THEN_RECORD, Set.of())) {
        KilledHolderScenario.Run r = s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH, true, true);
        String where = "seed " + seed;
        assertFalse(r.shipmentCovered(), where + ": covers nothing");
        assertFalse(r.enteredByImport(), where + ": scanned");
        assertEquals(1, r.entryBasesRestored(), where + ": the base was there");
        assertEquals(0, r.staleReads(), where + ": " + r.first());
      }
    }
  }

  @Test
  void importOnAnEntryBaseWithoutCoverage_servesTheKeyOfTheKilledTermStale() {
    report(
        "IMPORT_ENTRY_BASE_WITHOUT_COVERAGE",
        seed -> {
          try (KilledHolderScenario s =
              new KilledHolderScenario(
                  seed,
                  Mode.FLUSH_THEN_RECORD,
                  Set.of(Sabotage.IMPORT_ENTRY_BASE_WITHOUT_COVERAGE))) {
            KilledHolderScenario.Run r = s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH, true, true);
            return r.enteredByImport() && r.staleReads() > 0;
          }
        },
        SEEDS);
  }

  @Test
  void entryRecordBeforeItsFlush_killedBetween_servesTheScannedKeyStale() {
    report(
        "ENTRY_RECORD_BEFORE_FLUSH",
        seed -> {
          try (KilledHolderScenario s =
              new KilledHolderScenario(seed, Mode.ENTRY_RECORD_BEFORE_FLUSH, Set.of())) {
            KilledHolderScenario.Run r = s.run(KEYS, CHANGED, CrashAt.BETWEEN, false, false);
            return r.enteredByImport() && r.staleReads() > 0;
          }
        },
        SEEDS);
  }

  @Test
  void entryBaseBeforeTheScansCommitArrived_servesTheScannedKeyStale() {
    report(
        "ENTRY_BASE_BEFORE_CATCH_UP",
        seed -> {
          try (KilledHolderScenario s =
              new KilledHolderScenario(
                  seed, Mode.FLUSH_THEN_RECORD, Set.of(Sabotage.ENTRY_BASE_BEFORE_CATCH_UP))) {
            KilledHolderScenario.Run r = s.run(KEYS, CHANGED, CrashAt.AFTER_BOTH, false, false);
            return r.enteredByImport() && r.staleReads() > 0;
          }
        },
        SEEDS);
  }

  /** Runs every seed, prints how many catch {@code what}, and asserts at least one does. */
  private static void report(String what, LongPredicate caught, int seeds) {
    long first = -1;
    int count = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      if (caught.test(seed)) {
        count++;
        if (first < 0) {
          first = seed;
        }
      }
    }
    System.out.printf(
        "%s: caught by %d of %d seeds, first at seed %d%n", what, count, seeds, first);
    assertTrue(count > 0, what + " not caught in " + seeds + " seeds");
  }
}
