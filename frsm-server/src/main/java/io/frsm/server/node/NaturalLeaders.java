package io.frsm.server.node;

import io.frsm.server.ring.Ring;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether every ring range is led by its natural leader (its first replica) and by no one else: the
 * steady state of a healthy cluster, where leases and leader-only reads are in effect. After a
 * start the nodes that became ready first hold their peers' ranges as stand-ins and hand them back
 * within a few seconds; tools that measure or demonstrate the steady state wait for it here.
 */
public final class NaturalLeaders {
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private NaturalLeaders() {}

  /** True when each range's term is held by its natural leader alone among {@code nodes}. */
  public static boolean settled(Collection<FrsmNode> nodes) {
    Ring ring = null;
    for (FrsmNode n : nodes) {
      ring = n.ring();
      if (ring != null) {
        break;
      }
    }
    if (ring == null) {
      return false; // no node has seen the cluster form yet
    }
    for (int r = 0; r < ring.rangeCount(); r++) {
      int natural = ring.replicasOfRange(r).get(0);
      for (FrsmNode n : nodes) {
        if (n.leadsRange(r) != (n.nodeId() == natural)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Waits until {@link #settled} holds for {@code nodes} (every node of the cluster, running).
   *
   * @throws IllegalStateException when it does not within {@code timeout}, naming the ranges still
   *     led by another node
   */
  public static void await(Collection<FrsmNode> nodes, Duration timeout) {
    Objects.requireNonNull(nodes, "nodes");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!settled(nodes)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "ranges not led by their natural leaders after " + timeout + ": " + unsettled(nodes));
      }
      LockSupport.parkNanos(POLL_NANOS);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the natural leaders");
      }
    }
  }

  private static String unsettled(Collection<FrsmNode> nodes) {
    StringBuilder out = new StringBuilder();
    Ring ring = nodes.isEmpty() ? null : nodes.iterator().next().ring();
    if (ring == null) {
      return "the cluster has not formed";
    }
    for (int r = 0; r < ring.rangeCount(); r++) {
      int range = r;
      List<Integer> holders =
          nodes.stream().filter(n -> n.leadsRange(range)).map(FrsmNode::nodeId).toList();
      int natural = ring.replicasOfRange(r).get(0);
      if (!holders.equals(List.of(natural))) {
        out.append("range ").append(r).append(" held by ").append(holders);
        out.append(" (natural leader ").append(natural).append("); ");
      }
    }
    return out.toString();
  }
}
