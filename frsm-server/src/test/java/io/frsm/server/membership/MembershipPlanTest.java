package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The versions a membership change publishes, and the stored change's bytes. */
class MembershipPlanTest {
  private static final int VNODES = 8;
  private static final int RF = 3;

  private static List<NodeInfo> nodes(int... ids) {
    List<NodeInfo> out = new ArrayList<>();
    for (int id : ids) {
      out.add(new NodeInfo(id, "", 0, 0, ""));
    }
    return out;
  }

  private static final Placement FOUR = Ring.of(0, nodes(1, 2, 3, 4), VNODES, RF).placement();

  @Test
  void decommission_isLearnersThenPromotionThenDrop_eachASafeStep() {
    RingVersion base = RingVersion.initial(FOUR);
    List<List<Integer>> target = MembershipPlan.votersOver(FOUR, nodes(1, 2, 3), VNODES, RF);
    MembershipPlan plan = MembershipPlan.between(base, target, Set.of(4));
    List<RingVersion> steps = plan.steps();
    assertEquals(3, steps.size());
    RingVersion previous = base;
    for (RingVersion step : steps) {
      RingHistory.checkStep(previous, step); // throws if unsafe
      previous = step;
    }
    for (int r = 0; r < FOUR.rangeCount(); r++) {
      boolean had4 = FOUR.replicas(r).contains(4);
      assertEquals(had4 ? 1 : 0, steps.get(0).placement().learners(r).size(), "range " + r);
      assertEquals(had4 ? 4 : 3, steps.get(1).placement().replicas(r).size(), "range " + r);
      assertEquals(target.get(r), steps.get(2).placement().replicas(r));
    }
    assertFalse(steps.get(2).placement().nodes().contains(4));
    assertEquals(Set.of(4), steps.get(2).retired());
    assertEquals(Set.of(), steps.get(1).retired(), "retired only once it is in no range");
    assertTrue(plan.incoming().stream().allMatch(in -> in.node() != 4));
  }

  @Test
  void add_thenTheSameNodesAgain_planNothing() {
    Placement three = Ring.of(0, nodes(1, 2, 3), VNODES, RF).placement();
    RingVersion base = RingVersion.initial(three);
    List<List<Integer>> target = MembershipPlan.votersOver(three, nodes(1, 2, 3, 5), VNODES, RF);
    MembershipPlan plan = MembershipPlan.between(base, target, Set.of());
    assertEquals(3, plan.steps().size());
    assertTrue(plan.incoming().stream().allMatch(in -> in.node() == 5));
    assertFalse(plan.incoming().isEmpty());
    RingVersion grown = plan.steps().get(2);
    assertTrue(
        MembershipPlan.between(
                grown, MembershipPlan.votersOver(three, nodes(1, 2, 3, 5), VNODES, RF), Set.of())
            .steps()
            .isEmpty());
  }

  @Test
  void replace_swapsTheDeadNodeInPlace_andRetiresIt() {
    RingVersion base = RingVersion.initial(FOUR);
    MembershipPlan plan =
        MembershipPlan.between(base, MembershipPlan.replacing(FOUR, 2, 7), Set.of(2));
    Placement last = plan.steps().get(2).placement();
    for (int r = 0; r < FOUR.rangeCount(); r++) {
      List<Integer> expected = new ArrayList<>(FOUR.replicas(r));
      expected.replaceAll(n -> n == 2 ? 7 : n);
      assertEquals(expected, last.replicas(r));
    }
    assertEquals(Set.of(2), plan.steps().get(2).retired());
  }

  @Test
  void afterAReplace_laterChangesPlaceByTheDeadNodesTokens() {
    RingVersion base = RingVersion.initial(FOUR);
    RingVersion replaced =
        MembershipPlan.between(base, MembershipPlan.replacing(FOUR, 2, 7), Set.of(2))
            .steps()
            .get(2);
    // Decommissioning node 4 now places exactly as it would have with node 2, 7 in its place.
    List<List<Integer>> expected = MembershipPlan.votersOver(FOUR, nodes(1, 2, 3), VNODES, RF);
    expected =
        expected.stream().map(set -> set.stream().map(n -> n == 2 ? 7 : n).toList()).toList();
    List<List<Integer>> withTokens =
        MembershipPlan.votersOver(
            replaced.placement(), nodes(1, 7, 3), java.util.Map.of(7, 2), VNODES, RF);
    assertEquals(expected, withTokens);
    assertEquals(3, MembershipPlan.between(replaced, withTokens, Set.of(4)).steps().size());
  }

  @Test
  void twoVotersInOneRange_isRefused() {
    RingVersion base = RingVersion.initial(FOUR);
    List<List<Integer>> target = new ArrayList<>();
    for (int r = 0; r < FOUR.rangeCount(); r++) {
      target.add(FOUR.replicas(r));
    }
    target.set(0, List.of(7, 8, FOUR.replicas(0).get(0)));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> MembershipPlan.between(base, target, Set.of()));
    assertTrue(e.getMessage().contains("at most one voter in and one out"), e.getMessage());
  }

  @Test
  void storedChange_roundTrips_andHostileBytesAreRefused() {
    MembershipChange c = new MembershipChange(MembershipChange.Kind.REPLACE, 2, 7, 5);
    assertEquals(c, MembershipChange.decode(c.encode()));
    assertEquals("v1|replace|2|7|5", new String(c.encode(), StandardCharsets.UTF_8));
    for (String bad :
        List.of(
            "",
            "v1|replace|2|-1|5",
            "v1|add|2|7|5",
            "v1|remove|2|-1|5",
            "v2|add|2|-1|5",
            "v1|add|-2|-1|5",
            "v1|add|2|-1|-5",
            "v1|add|2|-1",
            "v1|add|2|-1|5|0",
            "v1|add|2|-1|5|01",
            "v1|add|2|-1|5|+1",
            "v1|add|2|-1|5|-1",
            "v1|add|2|-1|5|x",
            "v1|add|2|-1|5|99999",
            "v1|add|2|-1|5|1|2",
            "v1|repair|2|-1|5|1,2|1",
            "v1|add|99999999999|-1|5",
            "v1|replace|2|2|5",
            "x".repeat(200))) {
      assertThrows(
          IllegalArgumentException.class,
          () -> MembershipChange.decode(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
    assertThrows(IllegalArgumentException.class, () -> MembershipChange.decode(null));
  }

  @Test
  void storedChange_withRangesPerNode_roundTrips_andWithoutThemIsAllAtOnce() {
    MembershipChange stepped = new MembershipChange(MembershipChange.Kind.ADD, 4, -1, 3, 2);
    assertEquals("v1|add|4|-1|3|2", new String(stepped.encode(), StandardCharsets.UTF_8));
    assertEquals(stepped, MembershipChange.decode(stepped.encode()));
    // As a version before the ranges per node stored it: one step, and the same bytes again (a
    // cancel compares them).
    MembershipChange old =
        MembershipChange.decode("v1|add|4|-1|3".getBytes(StandardCharsets.UTF_8));
    assertEquals(0, old.rangesPerNode());
    assertEquals("v1|add|4|-1|3", new String(old.encode(), StandardCharsets.UTF_8));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MembershipChange(MembershipChange.Kind.REPAIR, 4, -1, 3, List.of(1), 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MembershipChange(MembershipChange.Kind.ADD, 4, -1, 3, -1));
  }

  @Test
  void rangesPerNodeZero_isTheThreeVersionPlan() {
    Placement three = Ring.of(0, nodes(1, 2, 3), VNODES, RF).placement();
    RingVersion base = RingVersion.initial(three);
    List<List<Integer>> target = MembershipPlan.votersOver(three, nodes(1, 2, 3, 5), VNODES, RF);
    assertEquals(
        MembershipPlan.between(base, target, Set.of()).steps(),
        MembershipPlan.between(base, target, Set.of(), 0).steps());
    assertEquals(3, MembershipPlan.between(base, target, Set.of(), 0).steps().size());
  }

  @Test
  void batchedAdd_promotesAtMostNRangesPerSettlingNodeAtATime_eachStepSafe() {
    Placement three = Ring.of(0, nodes(1, 2, 3), VNODES, RF).placement();
    RingVersion base = RingVersion.initial(three);
    List<List<Integer>> target = MembershipPlan.votersOver(three, nodes(1, 2, 3, 5), VNODES, RF);
    for (int perNode : new int[] {1, 2, 3, 100}) {
      assertBatched(base, target, Set.of(), perNode);
    }
  }

  @Test
  void batchedDecommissionAndReplace_retireOnlyAtTheLastStep() {
    RingVersion base = RingVersion.initial(FOUR);
    for (int perNode : new int[] {1, 2}) {
      List<RingVersion> shrink =
          assertBatched(
              base,
              MembershipPlan.votersOver(FOUR, nodes(1, 2, 3), VNODES, RF),
              Set.of(4),
              perNode);
      assertFalse(shrink.get(shrink.size() - 1).placement().nodes().contains(4));
      List<RingVersion> replaced =
          assertBatched(base, MembershipPlan.replacing(FOUR, 2, 7), Set.of(2), perNode);
      assertFalse(replaced.get(replaced.size() - 1).placement().nodes().contains(2));
    }
  }

  /**
   * Checks the plan of {@code perNode} against its target: the learner step first (every incoming
   * node a learner of each of its ranges), then promotion and drop per batch, each step safe; a
   * changed range has RF+1 voters in exactly one step, with at most {@code perNode} others of its
   * settling node (its first voter that stays); unpromoted ranges keep their learners; the ids in
   * {@code retire} are retired at the last step only, which is the target. Returns the steps.
   */
  private static List<RingVersion> assertBatched(
      RingVersion base, List<List<Integer>> target, Set<Integer> retire, int perNode) {
    Placement from = base.placement();
    MembershipPlan all = MembershipPlan.between(base, target, retire, 0);
    List<RingVersion> steps = MembershipPlan.between(base, target, retire, perNode).steps();
    assertEquals(all.steps().get(0), steps.get(0), "the learner step is the same");
    java.util.Map<Integer, Integer> changedPerSettler = new java.util.TreeMap<>();
    java.util.Map<Integer, Integer> settlerOf = new java.util.TreeMap<>();
    for (int r = 0; r < from.rangeCount(); r++) {
      List<Integer> next = target.get(r);
      if (!Set.copyOf(from.replicas(r)).equals(Set.copyOf(next))) {
        int settler = from.replicas(r).stream().filter(next::contains).findFirst().orElseThrow();
        settlerOf.put(r, settler);
        changedPerSettler.merge(settler, 1, Integer::sum);
      }
    }
    assertFalse(settlerOf.isEmpty());
    int most = changedPerSettler.values().stream().max(Integer::compare).orElseThrow();
    int batches = (most + perNode - 1) / perNode;
    assertEquals(1 + 2 * batches, steps.size(), "per node " + perNode);
    int[] raisedIn = new int[from.rangeCount()];
    int[] raisedAt = new int[from.rangeCount()];
    RingVersion previous = base;
    for (int i = 0; i < steps.size(); i++) {
      RingVersion step = steps.get(i);
      assertEquals(base.version() + 1 + i, step.version());
      RingHistory.checkStep(previous, step); // throws if unsafe
      boolean last = i == steps.size() - 1;
      assertEquals(last ? union(base.retired(), retire) : base.retired(), step.retired());
      java.util.Map<Integer, Integer> raisedPerSettler = new java.util.TreeMap<>();
      for (int r = 0; r < from.rangeCount(); r++) {
        Placement p = step.placement();
        if (p.replicas(r).size() == RF + 1) {
          raisedIn[r]++;
          raisedAt[r] = i;
          raisedPerSettler.merge(settlerOf.get(r), 1, Integer::sum);
          assertEquals(1, i % 2, "only a promotion (steps 1, 3, ...) raises: step " + i);
        }
        boolean promotedYet = raisedIn[r] > 0;
        List<Integer> learnersAtStart = steps.get(0).placement().learners(r);
        assertEquals(promotedYet || last ? List.of() : learnersAtStart, p.learners(r), "r" + r);
      }
      for (int n : raisedPerSettler.values()) {
        assertTrue(n <= perNode, "step " + i + ": " + n + " ranges of one node");
      }
      previous = step;
    }
    // A settling node's wider ranges go first, so a batch's settles are of like size.
    for (int a : settlerOf.keySet()) {
      for (int b : settlerOf.keySet()) {
        if (settlerOf.get(a).equals(settlerOf.get(b)) && raisedAt[a] < raisedAt[b]) {
          assertTrue(
              Long.compareUnsigned(span(from, a), span(from, b)) >= 0,
              "range " + a + " before the wider range " + b + " of node " + settlerOf.get(a));
        }
      }
    }
    for (int r = 0; r < from.rangeCount(); r++) {
      assertEquals(settlerOf.containsKey(r) ? 1 : 0, raisedIn[r], "range " + r);
      assertEquals(target.get(r), steps.get(steps.size() - 1).placement().replicas(r));
    }
    return steps;
  }

  private static long span(Placement p, int range) {
    return p.endToken(range) - p.startTokenExclusive(range);
  }

  private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
    Set<Integer> u = new java.util.TreeSet<>(a);
    u.addAll(b);
    return u;
  }
}
