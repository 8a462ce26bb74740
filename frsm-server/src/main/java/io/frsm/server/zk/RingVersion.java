package io.frsm.server.zk;

import io.frsm.consensus.core.Placement;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * One entry of the cluster's ring history ({@link RingHistory}): the placement of one ring version
 * and the node ids retired up to it (removed, or whose disk was wiped: they may never replicate
 * again, docs/PROTOCOL.md "Membership changes"). Carrying the retired ids in every version makes
 * each entry checkable on its own against its predecessor ({@code RingTransition.check(prev, next,
 * retired)}), and retired ids only grow along the history.
 *
 * <p>Version 0 is never stored: it is the placement the cluster's shape derives ({@code
 * ClusterShape.ring().placement()}), so a cluster formed before ring histories existed has one.
 *
 * @param placement the placement, whose {@link Placement#ringVersion()} is this entry's version
 * @param retired node ids that must never replicate again; none of them is a member of the
 *     placement
 */
public record RingVersion(Placement placement, Set<Integer> retired) {
  public RingVersion {
    Objects.requireNonNull(placement, "placement");
    retired = Set.copyOf(new TreeSet<>(retired));
    for (int node : retired) {
      if (placement.nodes().contains(node)) {
        throw new IllegalArgumentException(
            "retired node "
                + node
                + " replicates a range in ring version "
                + placement.ringVersion());
      }
    }
  }

  /** Version 0, from the cluster's shape. */
  public static RingVersion initial(Placement fromShape) {
    if (fromShape.ringVersion() != 0) {
      throw new IllegalArgumentException(
          "the shape's placement is version 0, was " + fromShape.ringVersion());
    }
    return new RingVersion(fromShape, Set.of());
  }

  public long version() {
    return placement.ringVersion();
  }
}
