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
    assertEquals(List.of(0), RingTransition.check(v2, v3).votersChanged());
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
