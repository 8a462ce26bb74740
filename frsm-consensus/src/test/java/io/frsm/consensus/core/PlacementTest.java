package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {

  private static final Placement THREE_RANGES =
      Placement.of(
          List.of(-100L, 0L, 100L), List.of(List.of(0, 1, 2), List.of(1, 2, 3), List.of(2, 3, 0)));

  @Test
  void tokens_fallInTheRangeEndingAtOrAfterThem_andWrapIntoRangeZero() {
    assertEquals(0, THREE_RANGES.rangeOf(Long.MIN_VALUE));
    assertEquals(0, THREE_RANGES.rangeOf(-100));
    assertEquals(1, THREE_RANGES.rangeOf(-99));
    assertEquals(1, THREE_RANGES.rangeOf(0));
    assertEquals(2, THREE_RANGES.rangeOf(1));
    assertEquals(2, THREE_RANGES.rangeOf(100));
    assertEquals(0, THREE_RANGES.rangeOf(101), "past the last end token wraps to range 0");
    assertEquals(0, THREE_RANGES.rangeOf(Long.MAX_VALUE));
  }

  @Test
  void replicasOfAKey_areItsRangesReplicas_naturalLeaderFirst() {
    for (int i = 0; i < 200; i++) {
      Key key = Key.of(("k" + i).getBytes(StandardCharsets.US_ASCII));
      int range = THREE_RANGES.rangeOf(key.token());
      assertEquals(THREE_RANGES.replicas(range), THREE_RANGES.replicasOf(key));
    }
    assertEquals(List.of(1, 2, 3), THREE_RANGES.replicas(1));
    assertEquals(java.util.Set.of(0, 1, 2, 3), THREE_RANGES.nodes());
  }

  @Test
  void rangeBounds_chainAroundTheRing() {
    assertEquals(100, THREE_RANGES.startTokenExclusive(0));
    assertEquals(-100, THREE_RANGES.startTokenExclusive(1));
    assertEquals(0, THREE_RANGES.startTokenExclusive(2));
    assertEquals(100, THREE_RANGES.endToken(2));
  }

  @Test
  void splitAt_givesHalfOpenRanges_fromMinToMax() {
    Placement p = Placement.splitAt(List.of(0L, 50L), List.of(0, 1, 2));
    assertEquals(3, p.rangeCount());
    assertEquals(0, p.rangeOf(Long.MIN_VALUE));
    assertEquals(0, p.rangeOf(-1));
    assertEquals(1, p.rangeOf(0));
    assertEquals(1, p.rangeOf(49));
    assertEquals(2, p.rangeOf(50));
    assertEquals(2, p.rangeOf(Long.MAX_VALUE));
  }

  @Test
  void single_holdsEveryToken() {
    Placement p = Placement.single(List.of(4, 5, 6));
    assertEquals(1, p.rangeCount());
    assertEquals(0, p.rangeOf(Long.MIN_VALUE));
    assertEquals(0, p.rangeOf(Long.MAX_VALUE));
    assertEquals(List.of(4, 5, 6), p.replicas(0));
  }

  @Test
  void badPlacements_areRefused_withTheReason() {
    assertThrows(IllegalArgumentException.class, () -> Placement.of(List.of(), List.of()));
    assertThrows(
        IllegalArgumentException.class,
        () -> Placement.of(List.of(5L, 5L), List.of(List.of(0), List.of(1))));
    assertThrows(
        IllegalArgumentException.class, () -> Placement.of(List.of(5L), List.of(List.of(0, 0))));
    assertThrows(
        IllegalArgumentException.class, () -> Placement.of(List.of(5L), List.of(List.of())));
    assertThrows(
        IllegalArgumentException.class, () -> Placement.of(List.of(1L, 5L), List.of(List.of(0))));
    assertThrows(IllegalArgumentException.class, () -> THREE_RANGES.replicas(3));
    assertThrows(
        IllegalArgumentException.class,
        () -> Placement.splitAt(List.of(Long.MIN_VALUE), List.of(0)));
  }

  @Test
  void rangeTermKeys_nameTheirRange_andMalformedOnesNone() {
    assertEquals(0, RangeTerm.rangeOf(RangeTerm.cellKey(0)));
    assertEquals(47, RangeTerm.rangeOf(RangeTerm.cellKey(47)));
    assertEquals(-1, RangeTerm.rangeOf(Key.of("plain".getBytes(StandardCharsets.US_ASCII))));
    byte[] prefix = RangeTerm.cellKey(1).bytesUnsafe().clone();
    byte[] leadingZero = java.util.Arrays.copyOf(prefix, prefix.length + 1);
    leadingZero[prefix.length - 1] = '0';
    leadingZero[prefix.length] = '1';
    assertEquals(-1, RangeTerm.rangeOf(Key.of(leadingZero)), "01 is not a canonical range name");
  }
}
