package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Sabotage;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The natural leader's absence and return ({@link HandOffScenario}) over many seeds: with the
 * hand-off as designed the returning node serves every key as last acknowledged without a scan;
 * each unsafe shortcut is caught — by the safety checker or by a stale read — within a seed budget.
 * {@code -Dfrsm.sim.handOffScenarioSeeds=N} sets the budget; the sabotage tests then run all N and
 * report the share of seeds that catch the shortcut.
 */
class HandOffScenarioTest {
  static final int CI_SEEDS = 60;
  static final int KEYS = 50;
  static final int CHANGED = 10;

  /** Later than a tick and the other replica's answer, well within a round timeout. */
  static final long OWN_ACCEPT_LATE_MICROS = 5_000;

  private static long seeds() {
    return Long.getLong("frsm.sim.handOffScenarioSeeds", CI_SEEDS);
  }

  @Test
  void handBack_everySeed_lastAcknowledgedValuesServed_withoutAScan() {
    for (long seed = 1; seed <= seeds(); seed++) {
      try (HandOffScenario s = new HandOffScenario(seed, Set.of(), true)) {
        HandOffScenario.Run r = s.run(KEYS, CHANGED);
        assertEquals(0, r.staleReads(), "seed " + seed + ": " + r.first());
        assertTrue(r.enteredByHandOff(), "seed " + seed + ": leader-only by the import");
        assertTrue(r.keysShipped() >= CHANGED, "seed " + seed + ": shipped " + r.keysShipped());
      }
    }
  }

  /**
   * docs/PROTOCOL.md "Settle only what may be open": a term that wrote more keys than the cap,
   * whose rounds all ended chosen but the one in flight at the hand-off, drains by settling that
   * one and ships the others as its cells hold them; the returning node serves every key as last
   * acknowledged.
   */
  @Test
  void aTermThatWroteMoreThanTheCap_withItsRoundsEnded_settlesOnlyTheOpenOne_andShips() {
    for (long seed = 1; seed <= 10; seed++) {
      try (HandOffScenario s = new HandOffScenario(seed, Set.of(), true, 2)) {
        HandOffScenario.Run r = s.run(KEYS, CHANGED);
        assertEquals(0, r.staleReads(), "seed " + seed + ": " + r.first());
        assertTrue(r.enteredByHandOff(), "seed " + seed + ": leader-only by the import");
        assertTrue(r.keysShipped() >= CHANGED, "seed " + seed + ": shipped " + r.keysShipped());
        assertTrue(
            r.keysSettled() >= 0 && r.keysSettled() <= 1,
            "seed "
                + seed
                + ": the drain settles at most the round in flight, not "
                + r.keysSettled());
      }
    }
  }

  @Test
  void withoutTheShipment_theReturningNodeScans_andServesTheSame() {
    for (long seed = 1; seed <= 10; seed++) {
      try (HandOffScenario s = new HandOffScenario(seed, Set.of(), false)) {
        HandOffScenario.Run r = s.run(KEYS, CHANGED);
        assertEquals(0, r.staleReads(), "seed " + seed + ": " + r.first());
        assertTrue(!r.enteredByHandOff(), "seed " + seed + ": no shipment, a scan");
      }
    }
  }

  @Test
  void aTermThatWroteMoreThanTheCap_declinesAtOnce_keepsTakingWrites_andTheSuccessorScans() {
    for (long seed = 1; seed <= 10; seed++) {
      try (HandOffScenario s = new HandOffScenario(seed, Set.of(), true, CHANGED - 1)) {
        HandOffScenario.Declined d = s.declinedHandBack(KEYS, CHANGED);
        assertEquals(1, d.declined().size(), "seed " + seed + ": one decline");
        assertEquals(CHANGED, d.declined().get(0).writtenKeys(), "seed " + seed);
        assertEquals(2, d.declined().get(0).term(), "seed " + seed);
        assertEquals(0, d.shipments(), "seed " + seed + ": nothing shipped");
        assertTrue(d.writeTakenAfterTheDecline(), "seed " + seed + ": the range was not stopped");
        assertTrue(d.scanned(), "seed " + seed + ": the successor scanned");
        assertEquals(0, d.staleReads(), "seed " + seed + ": " + d.first());
      }
    }
  }

  /**
   * The agent's own cap ({@code Input.HandOff.maxKeys}, its share of the node's drain budget)
   * declines like the configured cap, which here allows any size.
   */
  @Test
  void aTermThatWroteMoreThanTheHandOffsOwnCap_declinesAtOnce_asForTheConfiguredCap() {
    for (long seed = 1; seed <= 10; seed++) {
      try (HandOffScenario s =
          new HandOffScenario(seed, Set.of(), true, CoreConfig.Modes.HAND_OFF_KEYS_LIMIT)) {
        HandOffScenario.Declined d = s.declinedHandBack(KEYS, CHANGED, CHANGED - 1);
        assertEquals(1, d.declined().size(), "seed " + seed + ": one decline");
        assertEquals(CHANGED, d.declined().get(0).writtenKeys(), "seed " + seed);
        assertEquals(0, d.shipments(), "seed " + seed + ": nothing shipped");
        assertTrue(d.writeTakenAfterTheDecline(), "seed " + seed + ": the range was not stopped");
        assertTrue(d.scanned(), "seed " + seed + ": the successor scanned");
        assertEquals(0, d.staleReads(), "seed " + seed + ": " + d.first());
      }
    }
  }

  @Test
  void aShipmentWithAReservedKey_keysOutOfOrder_orAKeyTwice_isRefused_aSoundOneTaken() {
    try (HandOffScenario s = new HandOffScenario(1, Set.of(), true)) {
      long[] refused = s.hostileImports();
      assertEquals(3, refused[0], "the three broken shipments");
      assertEquals(0, refused[1], "the sound one");
    }
  }

  @Test
  void shipBeforeTheSettles_isCaught() {
    caught(Sabotage.SHIP_BEFORE_RECOMMIT);
  }

  /**
   * docs/PROTOCOL.md "Settle only what may be open": a drain that ships a key whose local cell is
   * chosen while the holder's newer accept of it is still open ships a value that accept may yet
   * supersede.
   */
  @Test
  void drainThatIgnoresOpenAccepts_isCaught() {
    long first = -1;
    for (long seed = 1; seed <= seeds() && first < 0; seed++) {
      try (HandOffScenario s =
          new HandOffScenario(seed, Set.of(Sabotage.DRAIN_IGNORES_OPEN_ACCEPTS), true)
              .ownAcceptOfTheKeyInFlightLate(OWN_ACCEPT_LATE_MICROS)) {
        if (s.run(KEYS, CHANGED).staleReads() > 0) {
          first = seed;
        }
      } catch (AssertionError e) {
        first = seed;
      }
    }
    assertTrue(first > 0, "DRAIN_IGNORES_OPEN_ACCEPTS not caught in " + seeds() + " seeds");
  }

  /**
   * The drain as designed, with the holder's own accept of the key in flight late (the case the
   * open-accept check is for): every key served as last acknowledged, by the import.
   */
  @Test
  void handBack_withTheOwnAcceptOfTheKeyInFlightLate_lastAcknowledgedValuesServed() {
    for (long seed = 1; seed <= seeds(); seed++) {
      try (HandOffScenario s =
          new HandOffScenario(seed, Set.of(), true)
              .ownAcceptOfTheKeyInFlightLate(OWN_ACCEPT_LATE_MICROS)) {
        HandOffScenario.Run r = s.run(KEYS, CHANGED);
        assertEquals(0, r.staleReads(), "seed " + seed + ": " + r.first());
        assertTrue(r.enteredByHandOff(), "seed " + seed + ": leader-only by the import");
      }
    }
  }

  @Test
  void holderGoesOnAfterItsShipment_isCaught() {
    caught(Sabotage.IMPORT_WITHOUT_RELEASE);
  }

  private static void caught(Sabotage sabotage) {
    boolean all = System.getProperty("frsm.sim.handOffScenarioSeeds") != null;
    long first = -1;
    long caught = 0;
    for (long seed = 1; seed <= seeds(); seed++) {
      String how = null;
      try (HandOffScenario s = new HandOffScenario(seed, Set.of(sabotage), true)) {
        HandOffScenario.Run r = s.run(KEYS, CHANGED);
        if (r.staleReads() > 0) {
          how = "stale read: " + r.first();
        }
      } catch (AssertionError e) {
        how = e.getMessage();
      }
      if (how != null) {
        caught++;
        if (first < 0) {
          first = seed;
          System.out.println(sabotage + " caught at seed " + seed + ": " + how);
        }
        if (!all) {
          return;
        }
      }
    }
    System.out.printf(
        "%s: first caught at seed %d, caught by %d of %d seeds%n",
        sabotage, first, caught, seeds());
    assertTrue(first > 0, sabotage + " not caught in " + seeds() + " seeds");
  }
}
