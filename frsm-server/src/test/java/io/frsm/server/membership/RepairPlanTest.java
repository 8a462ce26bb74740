package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RingTransition;
import io.frsm.consensus.core.UnsafeRingTransitionException;
import io.frsm.lsm.QuarantinedInterval;
import io.frsm.lsm.manifest.TokenInterval;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** A repair's versions, its stored form, which ranges it touches, and the order of its release. */
class RepairPlanTest {
  private static final Placement THREE = ring(3);

  private static Placement ring(int rf) {
    List<NodeInfo> nodes = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      nodes.add(new NodeInfo(id, "", 0, 0, ""));
    }
    return Ring.of(0, nodes, 4, rf).placement();
  }

  private static QuarantinedInterval at(long generation, long from, long to) {
    return new QuarantinedInterval(generation, new TokenInterval(from, to), false);
  }

  @Test
  void repair_isVoterToLearnerToVoter_eachStepSafe_onlyItsRanges() {
    RingVersion base = RingVersion.initial(THREE);
    List<Integer> ranges = List.of(1, 3);
    MembershipPlan plan = MembershipPlan.repair(base, 2, ranges);
    assertEquals(2, plan.steps().size());
    assertTrue(plan.incoming().isEmpty(), "a repair copies nothing: the settle restores");
    Placement learner = plan.steps().get(0).placement();
    Placement restored = plan.steps().get(1).placement();
    RingTransition down = RingHistory.checkStep(base, plan.steps().get(0));
    RingTransition up = RingHistory.checkStep(plan.steps().get(0), plan.steps().get(1));
    assertEquals(ranges, down.votersChanged());
    assertEquals(ranges, up.votersChanged());
    for (int r = 0; r < THREE.rangeCount(); r++) {
      boolean repaired = ranges.contains(r);
      assertEquals(repaired, !learner.replicas(r).contains(2), "range " + r);
      assertEquals(repaired ? List.of(2) : List.of(), learner.learners(r), "range " + r);
      assertEquals(THREE.replicas(r), restored.replicas(r), "range " + r + " as it was");
      assertTrue(restored.learners(r).isEmpty());
    }
  }

  @Test
  void voterToLearnerToVoter_isAllowed_butARetiredIdNeverComesBack() {
    RingVersion base = RingVersion.initial(THREE);
    MembershipPlan plan = MembershipPlan.repair(base, 2, List.of(0));
    Placement learner = plan.steps().get(0).placement();
    Placement restored = plan.steps().get(1).placement();
    RingTransition.check(THREE, learner, Set.of());
    RingTransition.check(learner, restored, Set.of());
    // Only removed or wiped ids are retired; a retired one is refused in any role.
    assertThrows(
        UnsafeRingTransitionException.class, () -> RingTransition.check(THREE, learner, Set.of(2)));
    assertThrows(
        UnsafeRingTransitionException.class,
        () -> RingTransition.check(learner, restored, Set.of(2)));
    assertThrows(
        IllegalArgumentException.class,
        () -> MembershipPlan.repair(new RingVersion(THREE, Set.of(9)), 9, List.of(0)));
  }

  @Test
  void repairThatLeavesFewerThanAQuorumOfVoters_isRefusedWithWhy() {
    RingVersion base = RingVersion.initial(ring(2));
    int voter = base.placement().replicas(0).get(0);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> MembershipPlan.repair(base, voter, List.of(0)));
    assertTrue(e.getMessage().contains("fewer than a quorum (2)"), e.getMessage());
  }

  @Test
  void repairDuringAnotherChange_orOfANonVoter_isRefused() {
    RingVersion base = RingVersion.initial(THREE);
    RingVersion learners = MembershipPlan.repair(base, 2, List.of(0)).steps().get(0);
    assertThrows(
        IllegalArgumentException.class, () -> MembershipPlan.repair(learners, 3, List.of(1)));
    assertThrows(IllegalArgumentException.class, () -> MembershipPlan.repair(base, 7, List.of(0)));
    assertThrows(
        IllegalArgumentException.class,
        () -> MembershipPlan.repair(base, 2, List.of(THREE.rangeCount())));
  }

  @Test
  void storedRepair_roundTrips_andHostileBytesAreRefused() {
    MembershipChange c =
        new MembershipChange(MembershipChange.Kind.REPAIR, 2, -1, 5, List.of(0, 3));
    assertEquals(c, MembershipChange.decode(c.encode()));
    assertEquals("v1|repair|2|-1|5|0,3", new String(c.encode(), StandardCharsets.UTF_8));
    for (String bad :
        List.of(
            "v1|repair|2|-1|5",
            "v1|repair|2|-1|5|",
            "v1|repair|2|-1|5|3,0",
            "v1|repair|2|-1|5|1,1",
            "v1|repair|2|-1|5|-1",
            "v1|repair|2|7|5|1",
            "v1|add|2|-1|5|1,3",
            "v1|repair|2|-1|5|x")) {
      assertThrows(
          IllegalArgumentException.class,
          () -> MembershipChange.decode(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
  }

  @Test
  void affectedRanges_areTheVoterRangesHoldingAQuarantinedToken() {
    int node = 1;
    List<Integer> mine = new ArrayList<>();
    for (int r = 0; r < THREE.rangeCount(); r++) {
      if (THREE.replicas(r).contains(node)) {
        mine.add(r);
      }
    }
    int r = mine.get(0);
    long end = THREE.endToken(r);
    assertEquals(List.of(r), RepairScope.affected(THREE, node, List.of(at(5, end, end))));
    // The whole token space (the replica fence): every range node 1 votes in.
    assertEquals(
        mine, RepairScope.affected(THREE, node, List.of(at(0, Long.MIN_VALUE, Long.MAX_VALUE))));
    // The token just after a range's end is the next range's.
    int next = (r + 1) % THREE.rangeCount();
    Set<Integer> expected = new TreeSet<>();
    if (THREE.replicas(next).contains(node)) {
      expected.add(next);
    }
    assertEquals(
        List.copyOf(expected), RepairScope.affected(THREE, node, List.of(at(5, end + 1, end + 1))));
  }

  @Test
  void releaseBeforeTheLearnerVersionIsInstalled_isRefused() {
    RingVersion base = RingVersion.initial(THREE);
    int node = 2;
    List<QuarantinedInterval> lost = List.of(at(0, Long.MIN_VALUE, Long.MAX_VALUE));
    List<Integer> ranges = RepairScope.affected(THREE, node, lost);
    MembershipPlan plan = MembershipPlan.repair(base, node, ranges);
    Placement learner = plan.steps().get(0).placement();
    Set<Integer> settled = Set.copyOf(ranges);
    assertTrue(RepairScope.covered(learner, node, lost));
    assertFalse(RepairScope.covered(THREE, node, lost));
    RepairScope.checkRelease(node, 1, learner, settled, lost); // the right moment: passes

    IllegalStateException early =
        assertThrows(
            IllegalStateException.class,
            () -> RepairScope.checkRelease(node, 0, learner, settled, lost));
    assertTrue(early.getMessage().contains("runs ring version 0"), early.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> RepairScope.checkRelease(node, 2, learner, settled, lost),
        "a voter again");
    IllegalStateException unsettled =
        assertThrows(
            IllegalStateException.class,
            () -> RepairScope.checkRelease(node, 1, learner, Set.of(), lost));
    assertTrue(unsettled.getMessage().contains("not settled"), unsettled.getMessage());
    // Demoted in too few ranges: a range still counting it as a voter holds a lost token.
    Placement partial =
        MembershipPlan.repair(base, node, List.of(ranges.get(0))).steps().get(0).placement();
    IllegalStateException voter =
        assertThrows(
            IllegalStateException.class,
            () -> RepairScope.checkRelease(node, 1, partial, settled, lost));
    assertTrue(voter.getMessage().contains("is a voter of range"), voter.getMessage());
  }
}
