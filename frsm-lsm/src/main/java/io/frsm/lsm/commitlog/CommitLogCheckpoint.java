package io.frsm.lsm.commitlog;

import java.util.Arrays;
import java.util.Objects;

/**
 * A cut through the commit log, one segment id per stripe: every record appended before the cut is
 * in a segment whose id is below its stripe's entry; records at or above it may be newer. Returned
 * by {@link CommitLog#rotate()}, consumed by {@link CommitLog#discardBefore}.
 *
 * <p>Immutable: the array is copied in and out.
 */
public record CommitLogCheckpoint(long[] segmentIdPerStripe) {

  public CommitLogCheckpoint {
    Objects.requireNonNull(segmentIdPerStripe, "segmentIdPerStripe");
    if (segmentIdPerStripe.length == 0) {
      throw new IllegalArgumentException("a checkpoint names at least one stripe");
    }
    segmentIdPerStripe = segmentIdPerStripe.clone();
    for (long id : segmentIdPerStripe) {
      if (id < 0) {
        throw new IllegalArgumentException(
            "segment ids are >= 0: " + Arrays.toString(segmentIdPerStripe));
      }
    }
  }

  /** A copy of the per-stripe segment ids. */
  @Override
  public long[] segmentIdPerStripe() {
    return segmentIdPerStripe.clone();
  }

  public int stripeCount() {
    return segmentIdPerStripe.length;
  }

  /** The first segment id of {@code stripe} that may hold records newer than this checkpoint. */
  public long segmentId(int stripe) {
    return segmentIdPerStripe[stripe];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommitLogCheckpoint c
        && Arrays.equals(segmentIdPerStripe, c.segmentIdPerStripe);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(segmentIdPerStripe);
  }

  @Override
  public String toString() {
    return "CommitLogCheckpoint" + Arrays.toString(segmentIdPerStripe);
  }
}
