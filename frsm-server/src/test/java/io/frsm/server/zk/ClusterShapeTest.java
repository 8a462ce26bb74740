package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterShapeTest {
  private static final ClusterShape FIVE =
      new ClusterShape(
          16,
          3,
          List.of(
              new ClusterShape.Member(1, "r1"),
              new ClusterShape.Member(2, "r1"),
              new ClusterShape.Member(3, "r2"),
              new ClusterShape.Member(4, "r2"),
              new ClusterShape.Member(5, "")),
          new ClusterTiming(Duration.ofSeconds(7), Duration.ofMillis(500)));

  @Test
  void v3_roundTrips_withRacksAndTiming() {
    byte[] encoded = FIVE.encode();
    assertEquals("v3|16|3|7000000|500000|1:r1,2:r1,3:r2,4:r2,5:", new String(encoded, UTF_8));
    assertEquals(FIVE, ClusterShape.decode(encoded));
    assertEquals(Duration.ofMillis(8_000), ClusterShape.decode(encoded).timing().createSettle());
  }

  @Test
  void timing_keepsWholeMicroseconds_soEqualConfigurationsCompareEqual() {
    ClusterTiming odd = new ClusterTiming(Duration.ofNanos(4_000_123_999L), Duration.ofNanos(1));
    assertEquals(new ClusterTiming(Duration.ofNanos(4_000_123_000L), Duration.ZERO), odd);
    ClusterShape shape = FIVE.withTiming(odd);
    assertEquals(shape, ClusterShape.decode(shape.encode()));
    assertEquals("T = 4000123 µs, ε = 0 ms", odd.toString());
    assertThrows(
        IllegalArgumentException.class,
        () -> new ClusterTiming(Duration.ofNanos(999), odd.clockSkewBound()));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ClusterTiming(Duration.ofSeconds(1), Duration.ofMillis(-1)));
  }

  @Test
  void v2_isStillRead_withoutTiming() {
    ClusterShape old = ClusterShape.decode("v2|16|3|1:r1,2:r1,3:r2,4:r2,5:".getBytes(UTF_8));
    assertEquals(FIVE.withTiming(null), old);
    assertNull(old.timing());
    IllegalStateException e = assertThrows(IllegalStateException.class, old::encode);
    assertTrue(e.getMessage().contains("with its timing"), e.getMessage());
  }

  @Test
  void v1_isStillRead_asThreeNodesWithoutRacks() {
    ClusterShape old = ClusterShape.decode("v1|1,2,3|16".getBytes(UTF_8));
    assertEquals(List.of(1, 2, 3), old.nodeIds());
    assertEquals(3, old.replicationFactor());
    assertEquals(16, old.vnodes());
    // Three nodes, RF 3: every range is on all three, in ring order (racks cannot reorder them).
    for (Ring.RangeReplicas r : old.ring().ranges()) {
      assertEquals(3, r.replicas().size());
    }
  }

  @Test
  void malformed_orInconsistent_isRefusedWithTheText() {
    for (String bad :
        List.of(
            "v4|16|3|1:a",
            "v3|16|3|1:a",
            "v2|16|3|1",
            "v2|x|3|1:a,2:b,3:c",
            "v2|16|4|1:a,2:b,3:c",
            "v3|16|3|0|0|1:a,2:b,3:c",
            "v3|16|3|5000000|-1|1:a,2:b,3:c",
            "v3|16|3|5s|0|1:a,2:b,3:c",
            "")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> ClusterShape.decode(bad.getBytes(UTF_8)), bad);
      assertTrue(e.getMessage().contains("malformed cluster shape"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> new ClusterShape.Member(1, "a,b"));
    assertThrows(IllegalArgumentException.class, () -> new ClusterShape.Member(1, "a:b"));
  }

  @Test
  void ring_usesTheShapesRacks_notTheLiveMembers() {
    Ring fromShape = FIVE.ring();
    Ring direct =
        Ring.of(
            1,
            List.of(
                new NodeInfo(1, "h", 1, 1, "r1"),
                new NodeInfo(2, "h", 1, 1, "r1"),
                new NodeInfo(3, "h", 1, 1, "r2"),
                new NodeInfo(4, "h", 1, 1, "r2"),
                new NodeInfo(5, "h", 1, 1, "")),
            16,
            3);
    assertEquals(direct.ranges(), fromShape.ranges());
    assertEquals(80, fromShape.rangeCount());
  }

  @Test
  void preferredHolder_isTheFirstLiveAndReadyReplica() {
    assertEquals(
        2,
        RangeLeadership.preferredHolder(
            List.of(1, 2, 3), java.util.Set.of(1, 2, 3), java.util.Set.of(2, 3)));
    assertEquals(
        1,
        RangeLeadership.preferredHolder(
            List.of(1, 2, 3), java.util.Set.of(1, 2, 3), java.util.Set.of(1, 2, 3)));
    assertEquals(
        -1,
        RangeLeadership.preferredHolder(
            List.of(1, 2, 3), java.util.Set.of(4), java.util.Set.of(1, 2, 3, 4)));
  }
}
