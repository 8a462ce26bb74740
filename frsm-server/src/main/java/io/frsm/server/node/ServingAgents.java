package io.frsm.server.node;

import io.frsm.server.client.ClusterMembers;
import io.frsm.server.membership.ChangeSettings;
import io.frsm.server.membership.MembershipAgent;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.membership.QuarantineRepairAgent;
import io.frsm.server.membership.RangeCopyAgent;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RangeSettleRequests;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import org.apache.curator.framework.CuratorFramework;

/**
 * The agents a node runs once it serves, besides its cores and range leadership: the {@link
 * RingFollower} (installs ring versions), the membership orchestrator with its {@link
 * MembershipAgent}, the {@link RangeCopyAgent} (copies ranges this node joins) and the {@link
 * QuarantineRepairAgent}. {@link FrsmNode} starts them, in this order, after the cores; each is set
 * as soon as it exists, so a stop closes what started even if a later one failed.
 */
final class ServingAgents {
  private volatile RingFollower ringFollower; // set once the node serves
  private volatile MembershipAgent membershipAgent; // set once the node serves
  private volatile MembershipOrchestrator orchestrator; // set once the node serves; for admin
  private volatile QuarantineRepairAgent repairAgent; // set once the node serves
  private volatile RangeCopyAgent copyAgent; // set once the node serves

  /**
   * Starts the agents of {@code node}, which serves now at ring version {@code initial}; {@code
   * copier} is what this node copies the ranges it joins as a learner with (docs/PROTOCOL.md
   * "Membership changes"); {@code changes} how the membership changes this node orchestrates and
   * requests run ({@code node.membershipStepTimeout}, {@code node.membershipStepRangesPerNode}).
   */
  void start(
      FrsmNode node,
      int nodeId,
      CuratorFramework zooKeeper,
      ZkLayout layout,
      ClusterShape shape,
      RingHistory history,
      RingVersion initial,
      Serving serving,
      ClusterMembers members,
      NodeTopology topology,
      NodeMetrics metrics,
      RangeCopier copier,
      ChangeSettings changes)
      throws Exception {
    ringFollower =
        new RingFollower(
            nodeId,
            history,
            new RangeSettleRequests(zooKeeper, layout),
            initial,
            serving.core(),
            range -> serving.leadership().holds(range),
            installed -> {
              serving.placementInstalled(installed.placement());
              serving.leadership().votersChanged(installed.placement());
              topology.placementInstalled(installed.placement());
            });
    ringFollower.start();
    orchestrator =
        new MembershipOrchestrator(
            zooKeeper, layout, shape, initial, id -> members.known().get(id), changes);
    membershipAgent = new MembershipAgent(nodeId, zooKeeper, layout, orchestrator);
    membershipAgent.start();
    copyAgent =
        NodeCopies.start(
            nodeId,
            zooKeeper,
            layout,
            initial,
            serving.core(),
            copier,
            id -> members.live().contains(id),
            metrics);
    repairAgent =
        NodeRepair.start(node, zooKeeper, layout, orchestrator, initial, serving.core(), metrics);
  }

  /** The membership orchestrator; null before the node serves. */
  MembershipOrchestrator orchestrator() {
    return orchestrator;
  }

  /** The membership agent; null before the node serves. */
  MembershipAgent membershipAgent() {
    return membershipAgent;
  }

  /** The quarantine repair agent; null before the node serves. */
  QuarantineRepairAgent repairAgent() {
    return repairAgent;
  }

  /** Adds the agents' stops, in the node's stop order, to {@code stop}. */
  StopSequence stopRepairAndMembership(StopSequence stop) {
    return stop.thenIf(repairAgent != null, "stop repairing", () -> repairAgent.close())
        .thenIf(membershipAgent != null, "stop orchestrating", () -> membershipAgent.close())
        .thenIf(copyAgent != null, "stop copying ranges in", () -> copyAgent.close())
        .thenIf(ringFollower != null, "stop following the ring", () -> ringFollower.close());
  }
}
