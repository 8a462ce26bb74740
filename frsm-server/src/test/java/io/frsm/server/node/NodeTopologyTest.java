package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TopologySnapshot;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ClusterTiming;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a node tells clients' topology watches, from its membership view: members with liveness, the
 * ring's ranges with replicas and the live named leader, the cluster's T + 2ε; a member record the
 * wire cannot carry left out (and no ring while a range would have no replica); one build per
 * change however many watches ask.
 */
class NodeTopologyTest {
  private static final ClusterShape SHAPE =
      new ClusterShape(
          4,
          2,
          List.of(new ClusterShape.Member(1, "a"), new ClusterShape.Member(2, "b")),
          new ClusterTiming(Duration.ofSeconds(4), Duration.ofMillis(10)));

  private static NodeInfo node(int id, String host) {
    return new NodeInfo(id, host, 7400 + id, 7500 + id, "r" + id);
  }

  @Test
  void theView_mirrorsTheMembersRingAndLiveLeaders_andIsBuiltOncePerChange() {
    ClusterMembers members = new ClusterMembers();
    NodeTopology topology = new NodeTopology(members);
    AtomicInteger heard = new AtomicInteger();
    topology.onChange(heard::incrementAndGet);

    TopologySnapshot before = topology.current();
    assertEquals(0, before.ringVersion(), "not formed: no ring");
    assertEquals(0, before.createSettleMicros());
    assertSame(before, topology.current(), "nothing changed: the same view");

    members.update(List.of(node(1, "10.0.0.1"), node(2, "10.0.0.2")));
    members.shape(SHAPE);
    members.leaders(range -> range == 0 ? 2 : -1);
    topology.changed();
    assertEquals(1, heard.get());
    TopologySnapshot formed = topology.current();
    assertNotSame(before, formed);
    Ring ring = members.ring();
    assertEquals(ring.version(), formed.ringVersion());
    assertEquals(4_020_000, formed.createSettleMicros());
    assertEquals(ring.rangeCount(), formed.ranges().size());
    for (int i = 0; i < ring.rangeCount(); i++) {
      assertEquals(ring.ranges().get(i).range().endInclusive(), formed.ranges().get(i).endToken());
      assertEquals(ring.replicasOfRange(i), formed.ranges().get(i).replicas());
      assertEquals(i == 0 ? 2 : -1, formed.ranges().get(i).leader());
    }
    assertEquals(7501, formed.member(1).clientPort());

    members.update(List.of(node(1, "10.0.0.1"))); // node 2 went down
    topology.changed();
    TopologySnapshot down = topology.current();
    assertTrue(!down.member(2).live() && down.member(1).live());
    assertEquals(-1, down.ranges().get(0).leader(), "a leader that is down is not named");
  }

  @Test
  void aMemberTheWireCannotCarry_isLeftOut_andARangeWithoutReplicas_dropsTheRing() {
    ClusterMembers members = new ClusterMembers();
    NodeTopology topology = new NodeTopology(members);
    members.update(List.of(node(1, "10.0.0.1"), node(2, ""))); // a forged record: no host
    members.shape(SHAPE);
    topology.changed();
    TopologySnapshot v = topology.current();
    assertNull(v.member(2));
    assertEquals(1, v.members().size());
    // RF 2 over two nodes: every range has node 1, so the ring stays, without node 2's slots.
    assertEquals(members.ring().rangeCount(), v.ranges().size());
    v.ranges().forEach(r -> assertEquals(List.of(1), r.replicas()));

    members.update(List.of(node(1, "h".repeat(254)), node(2, ""))); // neither carriable now
    topology.changed();
    TopologySnapshot none = topology.current();
    assertEquals(0, none.ringVersion(), "no range could name a replica: no ring");
    assertTrue(none.ranges().isEmpty() && none.members().isEmpty());
  }
}
