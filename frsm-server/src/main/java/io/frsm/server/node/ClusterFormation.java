package io.frsm.server.node;

import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;

/**
 * The cluster's shape as this node knows it, and the node's place in it. The first {@code
 * initialNodes} registered nodes form the cluster: their ids and racks, with this node's vnode
 * count, replication factor and timing, become the {@link ClusterShape} stored in ZooKeeper and
 * fixed from then on. Every node checks its own configuration against the stored shape — an id
 * outside it, another replication factor, another T or ε are refused with an error saying what to
 * set — and builds the same {@link Ring} from it.
 *
 * <p>This is where the cluster's shape changes reach the node: a {@link RingListener} hears each
 * new ring. Today a shape is fixed at formation, so it hears exactly one; the membership change
 * issue (adding, removing and replacing nodes) adds ring versions here.
 *
 * <p>Thread-safety: {@link #tryForm} runs on ZooKeeper's watch threads and on the starting thread,
 * {@link #close} on the stopping one; both take one lock, so after {@code close} returns no ring is
 * published any more. The lock is never held while waiting for another thread.
 */
final class ClusterFormation {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  /** Hears the cluster's ring. */
  interface RingListener {
    /**
     * The cluster's shape (and so its ring) is {@code shape}, {@code ring}: serve by it. Called
     * with the formation lock held; a failure refuses this node's place in the cluster.
     */
    void ringChanged(ClusterShape shape, Ring ring) throws Exception;
  }

  private final int self;
  private final String clusterId;
  private final int initialNodes;
  private final int vnodes;
  private final int replicationFactor;
  private final boolean join;
  private final ClusterTiming timing;
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final MembershipRegistry registry;
  private final ClusterMembers members;
  private final RingListener listener;
  private final CompletableFuture<Void> formed = new CompletableFuture<>();
  private final Object lock = new Object();
  private boolean closed; // guarded by lock

  ClusterFormation(
      int self,
      String clusterId,
      int initialNodes,
      int vnodes,
      int replicationFactor,
      boolean join,
      ClusterTiming timing,
      NodeMembership membership,
      ZkLayout layout,
      ClusterMembers members,
      RingListener listener) {
    this.self = self;
    this.clusterId = clusterId;
    this.initialNodes = initialNodes;
    this.vnodes = vnodes;
    this.replicationFactor = replicationFactor;
    this.join = join;
    this.timing = timing;
    this.zk = membership.zooKeeper();
    this.layout = layout;
    this.registry = membership.registry();
    this.members = members;
    this.listener = listener;
  }

  /**
   * Before this node registers: if the cluster formed already, refuses a node it does not describe,
   * so that a refused node never shows up as a member. Placement first, so a node that is refused
   * anyway never publishes its T and ε into a shape written before v3.
   *
   * @throws IllegalStateException if the stored shape refuses this node
   */
  void checkStoredShape() throws Exception {
    ClusterShape stored = ClusterShape.read(zk, layout);
    if (stored != null) {
      withTiming(stored);
    }
  }

  /**
   * Forms the cluster if its shape is known or enough nodes registered, and publishes its ring;
   * does nothing once formed or closed. On a refusal the node deregisters and {@link #awaitFormed}
   * fails with the reason.
   */
  void tryForm() {
    synchronized (lock) {
      if (formed.isDone() || closed) {
        return;
      }
      try {
        ClusterShape shape = ClusterShape.read(zk, layout);
        if (shape == null) {
          shape = proposeShape();
          if (shape == null) {
            return; // wait for more members
          }
        }
        shape = withTiming(shape);
        members.shape(shape);
        Ring ring = members.ring();
        listener.ringChanged(shape, ring);
        formed.complete(null);
        LOG.log(
            Level.INFO,
            "node {0} serves; cluster nodes {1}, {2} ranges, {3} replicated here",
            self,
            shape.nodeIds(),
            ring.rangeCount(),
            ring.placement().nodes().contains(self)
                ? ring.ranges().stream().filter(r -> r.replicas().contains(self)).count()
                : 0);
      } catch (Exception e) {
        LOG.log(Level.ERROR, "node " + self + " cannot join the cluster", e);
        formed.completeExceptionally(e);
        leaveAfterRefusal();
      }
    }
  }

  /**
   * The shape of the first {@code initialNodes} registered nodes, stored unless another node stored
   * one first (then that one); null while fewer have registered.
   */
  private ClusterShape proposeShape() throws Exception {
    List<NodeInfo> registered = registry.membersByRegistration();
    if (registered.size() < initialNodes) {
      return null;
    }
    List<ClusterShape.Member> first = new ArrayList<>();
    for (NodeInfo n : registered.subList(0, initialNodes)) {
      first.add(new ClusterShape.Member(n.nodeId(), n.rack()));
    }
    first.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
    return ClusterShape.createIfAbsent(
        zk, layout, new ClusterShape(vnodes, replicationFactor, first, timing));
  }

  /** From now on no ring is published; a wait for formation fails as "node stopped". */
  void close() {
    synchronized (lock) {
      closed = true;
    }
    formed.completeExceptionally(new IllegalStateException("node stopped"));
  }

  /**
   * Waits until the cluster formed and its ring was published.
   *
   * @throws IllegalStateException if this node was refused, stopped, or the wait timed out
   */
  void awaitFormed(Duration timeout) {
    try {
      formed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "node "
              + self
              + " not serving after "
              + timeout
              + ": "
              + members.live().size()
              + " of "
              + initialNodes
              + " initial members registered",
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** A node refused by the cluster must not look like a member to clients. */
  private void leaveAfterRefusal() {
    try {
      registry.deregister(self);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "node " + self + " could not deregister", e);
    }
  }

  /**
   * Checks this node belongs to {@code shape} as configured, publishes its T and ε into a shape
   * written before v3 (the first node of this version to start does), and checks them against the
   * shape's; returns the shape with its timing.
   */
  private ClusterShape withTiming(ClusterShape shape) throws Exception {
    checkPlacement(shape);
    if (shape.timing() == null) {
      shape = ClusterShape.publishTimingIfAbsent(zk, layout, timing);
    }
    checkTiming(shape);
    return shape;
  }

  /**
   * Refuses to serve in a cluster this node's configuration does not describe: an id outside the
   * shape, or another replication factor. The replication factor is fixed when the cluster forms
   * (the ring's replica sets, and so every quorum, follow from it); a node configured otherwise is
   * refused rather than silently following the shape, because its operator believes keys have
   * another number of copies than they have, and a warning in a log is easily missed.
   */
  private void checkPlacement(ClusterShape shape) {
    if (shape.replicationFactor() != replicationFactor) {
      throw new IllegalStateException(
          "node "
              + self
              + " is configured with replication factor "
              + replicationFactor
              + " (config key ring.replicationFactor, builder replicationFactor) but cluster "
              + clusterId
              + " formed with replication factor "
              + shape.replicationFactor()
              + ", fixed since: set ring.replicationFactor to "
              + shape.replicationFactor());
    }
    RingVersion newest;
    try {
      newest = new RingHistory(zk, layout).newest(RingVersion.initial(shape.ring().placement()));
    } catch (Exception e) {
      throw new IllegalStateException("node " + self + " cannot read the ring history: " + e, e);
    }
    if (newest.retired().contains(self)) {
      throw new IllegalStateException(
          "node "
              + self
              + " is retired from cluster "
              + clusterId
              + " (decommissioned, or replaced after its disk was lost) and can never take part"
              + " again: it may have forgotten promises it made; start the machine with an empty"
              + " data directory under a new node id, with cluster.join: true");
    }
    if (!shape.contains(self) && !join && !newest.placement().nodes().contains(self)) {
      throw new IllegalStateException(
          "node "
              + self
              + " is not one of cluster "
              + clusterId
              + "'s nodes "
              + shape.nodeIds()
              + ": the cluster formed from its first "
              + shape.nodeIds().size()
              + " registered nodes; to add this node, start it with cluster.join: true and run"
              + " frsm admin add-node "
              + self);
    }
  }

  private void checkTiming(ClusterShape shape) {
    if (!timing.equals(shape.timing())) {
      // Clients time the fence after an unknown create with the published T and ε: a node that
      // ran a longer T could let such a create take effect after that fence.
      throw new IllegalStateException(
          "node "
              + self
              + " is configured with "
              + timing
              + " but cluster "
              + clusterId
              + " runs with "
              + shape.timing()
              + " (published when it formed): set consensus.boundedDelay and"
              + " consensus.clockSkewBound (builder boundedDelay, clockSkewBound) to the"
              + " cluster's values");
    }
  }
}
