package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.transport.TopologySnapshot;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a seed-based client picks the nodes for a key from a topology: the range by token (wrapping
 * past the last end, as the nodes' ring does), then live leader, live replicas, any live member.
 */
class RoutingViewTest {
  private static final List<InetSocketAddress> SEEDS = List.of(address(7999));

  private static InetSocketAddress address(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private static TopologySnapshot.Member member(int id, boolean live) {
    return new TopologySnapshot.Member(id, "127.0.0.1", 7500 + id, live);
  }

  private static TopologySnapshot view(int leaderOfFirst, boolean twoLive) {
    return new TopologySnapshot(
        1,
        1,
        List.of(member(1, true), member(2, twoLive), member(3, true), member(4, true)),
        List.of(
            new TopologySnapshot.Range(-100, List.of(2, 3, 1), leaderOfFirst),
            new TopologySnapshot.Range(100, List.of(3, 1, 2), 3)),
        4_020_000);
  }

  @Test
  void rangeIndex_isTheFirstEndAtOrAfterTheToken_wrappingToTheFirst() {
    RoutingView v = RoutingView.of(view(2, true), SEEDS);
    assertEquals(0, v.rangeIndexOf(Long.MIN_VALUE));
    assertEquals(0, v.rangeIndexOf(-100));
    assertEquals(1, v.rangeIndexOf(-99));
    assertEquals(1, v.rangeIndexOf(100));
    assertEquals(0, v.rangeIndexOf(101), "past the last end: the first range (it wraps)");
    assertEquals(0, v.rangeIndexOf(Long.MAX_VALUE));
  }

  @Test
  void route_isLeader_thenLiveReplicas_thenAnyLiveMember() {
    byte[] key = keyInRange(RoutingView.of(view(2, true), SEEDS), 0);
    assertEquals(
        List.of(address(7502), address(7503), address(7501), address(7504)),
        RoutingView.of(view(2, true), SEEDS).route(key));
    // The leader is down: its live replicas in ring order, natural leader's slot skipped.
    assertEquals(
        List.of(address(7503), address(7501), address(7504)),
        RoutingView.of(view(2, false), SEEDS).route(key));
    // No leader known: replicas in order.
    assertEquals(
        List.of(address(7502), address(7503), address(7501), address(7504)),
        RoutingView.of(view(-1, true), SEEDS).route(key));
  }

  @Test
  void withoutARing_anyLiveMember_andWithoutLiveMembers_theSeeds() {
    TopologySnapshot noRing =
        new TopologySnapshot(0, 1, List.of(member(1, true), member(2, false)), List.of());
    assertEquals(List.of(address(7501)), RoutingView.of(noRing, SEEDS).route(bytes("k")));
    TopologySnapshot nobody = new TopologySnapshot(0, 1, List.of(member(1, false)), List.of());
    assertEquals(SEEDS, RoutingView.of(nobody, SEEDS).route(bytes("k")));
    assertEquals(SEEDS, RoutingView.ofSeeds(SEEDS).route(bytes("k")));
  }

  private static byte[] keyInRange(RoutingView v, int range) {
    for (int i = 0; ; i++) {
      byte[] key = bytes("k" + i);
      if (v.rangeIndexOf(RingToken.of(key)) == range) {
        return key;
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
