package io.frsm.server.node;

import io.frsm.lsm.QuarantinedInterval;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.membership.QuarantineRepairAgent;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.io.IOException;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;

/**
 * Starts a serving node's {@link QuarantineRepairAgent} over its storage and registers its meters
 * (docs/OPERATIONS.md "Metrics": {@code frsm.repair}).
 */
final class NodeRepair {
  private NodeRepair() {}

  static QuarantineRepairAgent start(
      FrsmNode node,
      CuratorFramework zk,
      ZkLayout layout,
      MembershipOrchestrator orchestrator,
      RingVersion initial,
      CoreShards core,
      NodeMetrics metrics) {
    QuarantineRepairAgent agent =
        new QuarantineRepairAgent(
            node.nodeId(),
            zk,
            layout,
            orchestrator,
            initial,
            core::ringVersion,
            new QuarantineRepairAgent.Storage() {
              @Override
              public List<QuarantinedInterval> needsRepair() {
                return node.needsRepair();
              }

              @Override
              public void release(long generation) throws IOException {
                node.releaseQuarantine(generation);
              }
            });
    String name = "frsm.repair";
    metrics.counter(
        name,
        "repairs of this node's quarantined storage it requested",
        "event",
        "started",
        agent::repairsStarted);
    metrics.counter(
        name,
        "repairs of this node seen to the end (a voter again)",
        "event",
        "finished",
        agent::repairsFinished);
    metrics.counter(
        name,
        "quarantined tables released after a repair",
        "event",
        "table_released",
        agent::tablesReleased);
    agent.start();
    return agent;
  }
}
