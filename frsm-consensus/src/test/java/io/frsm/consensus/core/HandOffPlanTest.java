package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a hand-off's drain settles and when it declines (docs/PROTOCOL.md "Settle only what may be
 * open", "Declining"): only the written keys the core says must be settled count against the cap;
 * the others ship as their cells hold them, up to {@link HandOffDrains#MAX_SHIPPED_KEYS} written
 * keys. The drain itself runs end to end in the simulator (HandOffScenarioTest).
 */
class HandOffPlanTest {
  private static final int RANGE = 0;
  private static final long TERM = 2;
  private static final int CAP = 4;

  private final Map<Key, Cell> cells = new HashMap<>();
  private final HandOffDrains drains =
      new HandOffDrains(
          CoreConfig.builder(Placement.single(List.of(0, 1, 2)))
              .leases(LeaseConfig.defaults())
              .modes(CoreConfig.Modes.DEFAULT.withHandOff(true).withHandOffMaxKeys(CAP))
              .build(),
          1_000_000,
          cells::get);

  private static Key key(int i) {
    return Key.of(("k-" + i).getBytes(StandardCharsets.US_ASCII));
  }

  private List<Key> written(int count) {
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      keys.add(key(i));
      drains.acceptSent(key(i), RANGE, TERM, i);
    }
    return keys;
  }

  @Test
  void aTermThatWroteMoreThanTheCap_withNothingToSettle_drains_andSettlesNothing() {
    written(10 * CAP);
    HandOffDrains.Plan plan = drains.plan(RANGE, TERM, Integer.MAX_VALUE, k -> false);
    assertEquals(-1, plan.declinedKeys());
    assertEquals(Set.of(), plan.toSettle());
  }

  @Test
  void onlyTheKeysThatMustBeSettled_areSettled_andCounted() {
    List<Key> keys = written(10 * CAP);
    Set<Key> open = Set.of(keys.get(3), keys.get(17), keys.get(30));
    HandOffDrains.Plan plan = drains.plan(RANGE, TERM, Integer.MAX_VALUE, open::contains);
    assertEquals(-1, plan.declinedKeys());
    assertEquals(open, plan.toSettle());
  }

  @Test
  void moreKeysToSettleThanTheCap_declines_withTheirCount() {
    written(10 * CAP);
    HandOffDrains.Plan plan = drains.plan(RANGE, TERM, Integer.MAX_VALUE, k -> true);
    assertEquals(10 * CAP, plan.declinedKeys());
    assertNull(plan.toSettle());
    assertEquals(1, drains.declined());
  }

  @Test
  void theHandOffsOwnCap_declinesLikeTheConfiguredOne() {
    List<Key> keys = written(10 * CAP);
    Set<Key> open = Set.of(keys.get(1), keys.get(2));
    assertEquals(2, drains.plan(RANGE, TERM, 1, open::contains).declinedKeys());
    assertEquals(-1, drains.plan(RANGE, TERM, 2, open::contains).declinedKeys());
  }

  @Test
  void moreWrittenKeysThanAShipmentTakes_declines_evenWithNothingToSettle() {
    written(HandOffDrains.MAX_SHIPPED_KEYS + 1);
    HandOffDrains.Plan plan = drains.plan(RANGE, TERM, Integer.MAX_VALUE, k -> false);
    assertEquals(HandOffDrains.MAX_SHIPPED_KEYS + 1, plan.declinedKeys());
  }

  @Test
  void aTermThatWroteNothing_orAnotherTerm_drainsEmpty() {
    assertEquals(Set.of(), drains.plan(RANGE, TERM, 0, k -> true).toSettle());
    written(3);
    assertEquals(Set.of(), drains.plan(RANGE, TERM + 1, 0, k -> true).toSettle());
  }

  @Test
  void aDeclinedPlan_cannotBegin() {
    written(10 * CAP);
    HandOffDrains.Plan declined = drains.plan(RANGE, TERM, Integer.MAX_VALUE, k -> true);
    assertThrows(
        IllegalStateException.class,
        () -> drains.begin(new Now(0, 0), RANGE, TERM, declined, null, new ArrayList<>()));
  }
}
