package io.frsm.consensus.core;

import io.frsm.cell.Key;

/**
 * One node's {@link RangeLease} of every range of its placement, and the placement itself: the
 * table the parts of {@link LeaseState} share. The ranges never change; the replica sets may
 * ({@link LeaseVoterChanges}), so the placement is replaced in place and every part reads the
 * current one here.
 */
final class RangeLeases {
  /** The current placement (ranges never change, replica sets may). */
  private Placement placement;

  private final RangeLease[] ranges;

  RangeLeases(Placement placement) {
    this.placement = placement;
    this.ranges = new RangeLease[placement.rangeCount()];
    for (int i = 0; i < ranges.length; i++) {
      ranges[i] = new RangeLease();
    }
  }

  Placement placement() {
    return placement;
  }

  /** The placement is now {@code next} (the same ranges). */
  void placement(Placement next) {
    placement = next;
  }

  /** How many ranges there are. */
  int count() {
    return ranges.length;
  }

  /** Range {@code i}'s lease; {@code i} is known to be in range. */
  RangeLease at(int i) {
    return ranges[i];
  }

  /** Range {@code range}'s lease, checked: a range of another placement is a caller's bug. */
  RangeLease of(int range) {
    if (range < 0 || range >= ranges.length) {
      throw new IllegalArgumentException(
          "no range " + range + " (configured: " + ranges.length + ")");
    }
    return ranges[range];
  }

  int rangeOf(Key key) {
    return placement.rangeOf(key);
  }

  /** The lease of {@code key}'s range. */
  RangeLease of(Key key) {
    return ranges[rangeOf(key)];
  }

  @Override
  public String toString() {
    return java.util.Arrays.toString(ranges);
  }
}
