package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RingTransition;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Which ranges a step settles ({@link MembershipOrchestrator#rangesToSettle}): the copy spares only
 * the learner step's settle of ranges whose voters stay; every step that changes a range's voters
 * settles it, whatever was copied (rule 4(b); docs/PROTOCOL.md "Copy").
 */
class RangesToSettleTest {
  private static final int VNODES = 8;
  private static final int RF = 3;

  private static List<NodeInfo> nodes(int... ids) {
    List<NodeInfo> out = new ArrayList<>();
    for (int id : ids) {
      out.add(new NodeInfo(id, "", 0, 0, ""));
    }
    return out;
  }

  private static final Placement THREE = Ring.of(0, nodes(1, 2, 3), VNODES, RF).placement();

  /** The transitions of adding node 4 to three nodes: learner, promotion, drop. */
  private static List<RingTransition> addFour() {
    RingVersion base = RingVersion.initial(THREE);
    MembershipPlan plan =
        MembershipPlan.between(
            base, MembershipPlan.votersOver(THREE, nodes(1, 2, 3, 4), VNODES, RF), Set.of());
    List<RingTransition> out = new ArrayList<>();
    RingVersion previous = base;
    for (RingVersion step : plan.steps()) {
      out.add(RingHistory.checkStep(previous, step));
      previous = step;
    }
    return out;
  }

  private static Set<Integer> allRanges() {
    Set<Integer> all = new TreeSet<>();
    for (int r = 0; r < THREE.rangeCount(); r++) {
      all.add(r);
    }
    return all;
  }

  @Test
  void learnerStep_rangesCopiedWithData_areNotSettled_othersAre() {
    RingTransition learner = addFour().get(0);
    assertTrue(learner.votersChanged().isEmpty(), "the learner step changes no voters");
    Set<Integer> changed = new TreeSet<>(learner.membersChanged());
    assertFalse(changed.isEmpty());
    int notCopied = changed.iterator().next();
    Set<Integer> copied = new TreeSet<>(changed);
    copied.remove(notCopied);

    assertEquals(Set.of(notCopied), MembershipOrchestrator.rangesToSettle(learner, copied));
    assertEquals(changed, MembershipOrchestrator.rangesToSettle(learner, Set.of()));
    assertEquals(Set.of(), MembershipOrchestrator.rangesToSettle(learner, changed));
  }

  @Test
  void promotion_settlesEveryRangeWhoseVotersChange_evenIfCopied() {
    RingTransition promotion = addFour().get(1);
    assertFalse(promotion.votersChanged().isEmpty());
    assertEquals(promotion.votersChanged(), promotion.votersToSettle());
    Set<Integer> settled = MembershipOrchestrator.rangesToSettle(promotion, allRanges());
    assertTrue(
        settled.containsAll(promotion.votersChanged()),
        "a copy never spares a settle that rule 4(b) asks: " + settled);
    assertEquals(new TreeSet<>(promotion.membersChanged()), settled);
  }

  @Test
  void drop_fromFourVotersToThree_settlesNothing_copiedOrNot() {
    RingTransition drop = addFour().get(2);
    assertFalse(drop.votersChanged().isEmpty());
    assertEquals(List.of(), drop.votersToSettle(), "4 -> 3 voters: rule 4(b) spares the settle");
    assertEquals(Set.of(), MembershipOrchestrator.rangesToSettle(drop, allRanges()));
    assertEquals(Set.of(), MembershipOrchestrator.rangesToSettle(drop, Set.of()));
  }
}
