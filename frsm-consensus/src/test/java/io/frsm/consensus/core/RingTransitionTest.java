package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link RingTransition}: the rules a publisher of ring versions obeys, refused by name. */
class RingTransitionTest {
  private static final Placement V0 = Placement.splitAt(List.of(0L), List.of(0, 1, 2));

  @Test
  void addingALearner_thenPromotingIt_thenDroppingAVoter_areSingleSteps() {
    Placement v1 = V0.withRange(1, 0, List.of(0, 1, 2), List.of(3));
    Placement v2 = v1.withRange(2, 0, List.of(0, 1, 2, 3), List.of());
    Placement v3 = v2.withRange(3, 0, List.of(0, 1, 3), List.of());
    RingTransition learner = RingTransition.check(V0, v1);
    assertEquals(List.of(0), learner.membersChanged());
    assertEquals(List.of(), learner.votersChanged(), "a learner changes no quorum: no settle");
    assertEquals(List.of(0), RingTransition.check(v1, v2).votersChanged());
    assertEquals(List.of(0), RingTransition.check(v1, v2).votersToSettle(), "an add settles");
    assertEquals(List.of(0), RingTransition.check(v2, v3).votersChanged());
    assertEquals(
        List.of(),
        RingTransition.check(v2, v3).votersToSettle(),
        "a drop from 4 voters to 3 settles nothing: 3 of the 4 hold every chosen value logged");
  }

  @Test
  void settleSpared_onlyForOneVoterRemovedFromAnEvenSizedSet_withTheLearnersUnchanged() {
    // 4 -> 3: values logged at 3 of 4 keep 2 of the 3 left, a quorum.
    assertTrue(RingTransition.settleSpared(List.of(0, 1, 2, 3), List.of(0, 1, 3), false));
    // 2 -> 1 likewise (RF 1 raised to 2 and back).
    assertTrue(RingTransition.settleSpared(List.of(0, 1), List.of(1), false));
    // 3 -> 2: values logged at 2 of 3 may keep 1 of the 2 left, short of a quorum of 2.
    assertFalse(RingTransition.settleSpared(List.of(0, 1, 2), List.of(0, 1), false));
    // 5 -> 4: 3 of 5 may keep 2 of 4, short of 3.
    assertFalse(RingTransition.settleSpared(List.of(0, 1, 2, 3, 4), List.of(0, 1, 2, 3), false));
    // An add never: the new voter holds nothing logged.
    assertFalse(RingTransition.settleSpared(List.of(0, 1, 2), List.of(0, 1, 2, 3), false));
    assertFalse(RingTransition.settleSpared(List.of(0, 1, 2, 3), List.of(0, 1, 2, 3), false));
    // A learner gained or lost at the same step: settled as before.
    assertFalse(RingTransition.settleSpared(List.of(0, 1, 2, 3), List.of(0, 1, 3), true));
  }

  @Test
  void mayFollow_aDropFromAnEvenSizedSet_withoutASettle_butNotBeforeItsInstallationQuorum() {
    Placement v1 = V0.withRange(1, 0, List.of(0, 1, 2, 3), List.of());
    Placement v2 = v1.withRange(2, 0, List.of(0, 1, 3), List.of());
    RingTransition drop = RingTransition.check(v1, v2);
    assertEquals(List.of(0), drop.membersChanged());
    assertEquals(List.of(), drop.votersToSettle());
    assertFalse(drop.mayFollow(Set.of(0), Set.of()), "rule (a): 2 of the 3 voters first");
    assertTrue(drop.mayFollow(Set.of(0, 3), Set.of()), "rule (b) asks no settle here");
    // The same drop that also adds a learner is settled as before.
    Placement withLearner = v1.withRange(2, 0, List.of(0, 1, 3), List.of(4));
    RingTransition dropAndLearner = RingTransition.check(v1, withLearner);
    assertEquals(List.of(0), dropAndLearner.votersToSettle());
    assertFalse(dropAndLearner.mayFollow(Set.of(0, 3), Set.of()));
    assertTrue(dropAndLearner.mayFollow(Set.of(0, 3), Set.of(0)));
  }

  @Test
  void twoVotersOfARangeAtOnce_isRefused() {
    Placement replaced = V0.withRange(1, 1, List.of(0, 1, 3), List.of());
    var e =
        assertThrows(UnsafeRingTransitionException.class, () -> RingTransition.check(V0, replaced));
    assertTrue(e.getMessage().contains("range 1 changes 2 voters at once"), e.getMessage());
    Placement twoAdded = V0.withRange(1, 0, List.of(0, 1, 2, 3, 4), List.of());
    assertThrows(UnsafeRingTransitionException.class, () -> RingTransition.check(V0, twoAdded));
  }

  @Test
  void versionsGoUpByOne_andRangesStay() {
    assertThrows(UnsafeRingTransitionException.class, () -> RingTransition.check(V0, V0));
    assertThrows(
        UnsafeRingTransitionException.class, () -> RingTransition.check(V0, V0.atVersion(2)));
    Placement otherCut = Placement.splitAt(List.of(5L), List.of(0, 1, 2)).atVersion(1);
    var e =
        assertThrows(UnsafeRingTransitionException.class, () -> RingTransition.check(V0, otherCut));
    assertTrue(e.getMessage().contains("range 0 ends at another token"), e.getMessage());
    Placement oneRange = Placement.single(List.of(0, 1, 2)).atVersion(1);
    assertThrows(UnsafeRingTransitionException.class, () -> RingTransition.check(V0, oneRange));
  }

  @Test
  void aRetiredId_mayNeverReplicateAgain_notEvenAsALearner() {
    Placement back = V0.withRange(1, 0, List.of(0, 1, 2), List.of(7));
    var e =
        assertThrows(
            UnsafeRingTransitionException.class, () -> RingTransition.check(V0, back, Set.of(7)));
    assertTrue(e.getMessage().contains("node 7 is retired"), e.getMessage());
  }

  @Test
  void badPlacements_areRefusedWhenBuilt() {
    assertThrows(
        IllegalArgumentException.class, () -> V0.withRange(1, 0, List.of(0, 1), List.of(1)));
    assertThrows(IllegalArgumentException.class, () -> V0.withRange(1, 0, List.of(), List.of(1)));
    assertThrows(IllegalArgumentException.class, () -> V0.atVersion(-1));
    assertThrows(IllegalArgumentException.class, () -> V0.atVersion(InputBounds.MAX_NUMBER + 1));
    assertThrows(IllegalArgumentException.class, () -> V0.withRange(1, 2, List.of(0), List.of()));
  }

  @Test
  void mayFollow_needsAnInstallationQuorumOfEveryChangedRange_andASettleOfEveryVoterChange() {
    Placement v1 = V0.withRange(1, 0, List.of(0, 1, 2, 3), List.of());
    RingTransition step = RingTransition.check(V0, v1);
    assertFalse(step.mayFollow(Set.of(0, 1), Set.of(0)), "2 of 4 voters installed: no quorum");
    assertFalse(step.mayFollow(Set.of(0, 1, 3), Set.of()), "range 0 not settled");
    assertFalse(step.mayFollow(Set.of(0, 1, 3), Set.of(1)), "the wrong range settled");
    assertTrue(step.mayFollow(Set.of(0, 1, 3), Set.of(0)));
    assertTrue(step.mayFollow(Set.of(1, 2, 3, 9), Set.of(0, 1)), "non-voters do not hurt");
  }
}
