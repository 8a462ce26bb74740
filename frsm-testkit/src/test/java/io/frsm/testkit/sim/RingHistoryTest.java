package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import java.util.List;
import org.junit.jupiter.api.Test;

class RingHistoryTest {
  private static final Placement V0 = Placement.single(List.of(0, 1, 2));
  private static final Placement V1 = V0.withRange(1, 0, List.of(0, 1, 2), List.of(3));
  private static final Placement V2 = V1.withRange(2, 0, List.of(0, 1, 2, 3), List.of());

  @Test
  void publish_takesTheNextVersion_ignoresTheSameAgain_refusesGapsAndOthersAtAKnownVersion() {
    RingHistory ring = new RingHistory(V0);
    ring.publish(V1);
    ring.publish(V1.atVersion(1)); // an equal copy: a re-sent notice
    assertEquals(2, ring.size());
    assertThrows(IllegalArgumentException.class, () -> ring.publish(V2.atVersion(3)));
    assertThrows(
        IllegalArgumentException.class,
        () -> ring.publish(V0.withRange(1, 0, List.of(0, 1), List.of())));
    ring.publish(V2);
    assertEquals(V2, ring.latest());
  }

  @Test
  void lookups_byVersion_andMembershipOverEveryPublishedVersion() {
    RingHistory ring = new RingHistory(V0);
    ring.publish(V1);
    ring.publish(V2);
    assertEquals(V1, ring.at(1));
    assertEquals(V2, ring.at(9), "a version above the history: the newest");
    assertEquals(List.of(V1, V2), ring.since(1));
    assertEquals(List.of(V0, V1, V2), ring.since(Long.MIN_VALUE));
    assertTrue(ring.everMember(0, 3), "a learner since version 1");
    assertFalse(ring.everMember(0, 4));
    ring.retire(2);
    assertEquals(java.util.Set.of(2), ring.retired());
  }
}
