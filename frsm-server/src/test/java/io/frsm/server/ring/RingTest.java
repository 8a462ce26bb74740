package io.frsm.server.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RingTest {

  private static List<NodeInfo> nodes(int count, int racks) {
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new NodeInfo(i, "127.0.0.1", 7000 + i, 9000 + i, "rack" + (i % racks)));
    }
    return out;
  }

  @Test
  void sameMembers_giveTheSameRing_inAnyOrder() {
    List<NodeInfo> members = nodes(5, 5);
    List<NodeInfo> reversed = new ArrayList<>(members);
    java.util.Collections.reverse(reversed);
    Ring a = Ring.of(1, members, 16, 3);
    Ring b = Ring.of(1, reversed, 16, 3);
    assertEquals(a.ranges(), b.ranges());
  }

  @Property(tries = 200)
  void everyToken_hasRfDistinctReplicas_andFallsInItsRange(
      @ForAll long token, @ForAll @IntRange(min = 3, max = 9) int nodeCount) {
    Ring ring = Ring.of(1, nodes(nodeCount, 3), 8, 3);
    List<Integer> replicas = ring.replicasFor(token);
    assertEquals(3, replicas.size());
    assertEquals(3, new HashSet<>(replicas).size());
    assertTrue(ring.rangeOf(token).contains(token));
    assertEquals(replicas.get(0), ring.naturalLeaderFor(token));
  }

  @Test
  void ranges_coverTheWholeTokenSpaceExactlyOnce() {
    Ring ring = Ring.of(1, nodes(4, 2), 8, 3);
    java.util.Random r = new java.util.Random(7);
    for (int i = 0; i < 10_000; i++) {
      long token = r.nextLong();
      long owners = ring.ranges().stream().filter(rr -> rr.range().contains(token)).count();
      assertEquals(1, owners, "token " + token);
    }
    for (long edge : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0}) {
      assertEquals(1, ring.ranges().stream().filter(rr -> rr.range().contains(edge)).count());
    }
  }

  @Test
  void replicas_areSpreadOverRacks_whenThereAreEnough() {
    Ring ring = Ring.of(1, nodes(6, 3), 16, 3);
    for (Ring.RangeReplicas rr : ring.ranges()) {
      Set<String> racks = new HashSet<>();
      for (int id : rr.replicas()) {
        racks.add(ring.member(id).rack());
      }
      assertEquals(3, racks.size(), "range " + rr);
    }
  }

  @Test
  void fewerRacksThanReplicas_stillGivesDistinctNodes() {
    Ring ring = Ring.of(1, nodes(4, 2), 16, 3);
    for (Ring.RangeReplicas rr : ring.ranges()) {
      assertEquals(3, new HashSet<>(rr.replicas()).size());
    }
  }

  @Test
  void naturalLeadership_isBalanced() {
    Ring ring = Ring.of(1, nodes(3, 3), 64, 3);
    Map<Integer, Integer> leads = new HashMap<>();
    java.util.Random r = new java.util.Random(1);
    int keys = 30_000;
    for (int i = 0; i < keys; i++) {
      long token = Token.of(("key" + r.nextInt()).getBytes());
      leads.merge(ring.naturalLeaderFor(token), 1, Integer::sum);
    }
    for (int count : leads.values()) {
      assertTrue(
          count > keys / 3 * 0.6 && count < keys / 3 * 1.4, "unbalanced leadership " + leads);
    }
  }

  @Test
  void tooFewNodes_orDuplicateIds_areRejected() {
    assertThrows(IllegalArgumentException.class, () -> Ring.of(1, nodes(2, 2), 8, 3));
    List<NodeInfo> dup = new ArrayList<>(nodes(3, 3));
    dup.add(new NodeInfo(0, "h", 1, 2, "r"));
    assertThrows(IllegalArgumentException.class, () -> Ring.of(1, dup, 8, 3));
  }

  @Test
  void vnodeTokens_areFrozen() {
    // DO NOT CHANGE: nodes of different versions must agree on the ring.
    // Pinned values (MurmurHash3 of "frsm-vnode:<node>:<vnode>", checked against Python mmh3).
    assertEquals(-9156101030449631699L, Ring.vnodeToken(3, 1));
  }

  @Property(tries = 100)
  void placement_agreesWithTheRing_forEveryToken(
      @ForAll long token, @ForAll @IntRange(min = 3, max = 9) int nodes) {
    Ring ring = Ring.of(1, nodes(nodes, 3), 8, 3);
    io.frsm.consensus.core.Placement placement = ring.placement();
    assertEquals(ring.rangeCount(), placement.rangeCount());
    int range = ring.rangeIndexOf(token);
    assertEquals(range, placement.rangeOf(token));
    assertEquals(ring.replicasFor(token), placement.replicas(range));
    assertEquals(ring.naturalLeaderFor(token), placement.replicas(range).get(0));
    assertTrue(ring.rangeOf(token).contains(token));
  }
}
