package io.frsm.server.node;

import io.frsm.server.membership.RangeCopyAgent;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.time.Duration;
import java.util.function.IntPredicate;
import org.apache.curator.framework.CuratorFramework;

/**
 * Starts a serving node's {@link RangeCopyAgent}, which runs the copies a membership change asks of
 * this node, and registers its meters (docs/OPERATIONS.md "Metrics": {@code frsm.membership.copy}).
 */
final class NodeCopies {
  /** One copy from one voter; a range of a few GB at the default throttle fits with room. */
  static final Duration ATTEMPT_TIMEOUT = Duration.ofMinutes(30);

  private NodeCopies() {}

  static RangeCopyAgent start(
      int nodeId,
      CuratorFramework zk,
      ZkLayout layout,
      RingVersion initial,
      CoreShards core,
      RangeCopier copier,
      IntPredicate registered,
      NodeMetrics metrics) {
    RangeCopyAgent agent =
        new RangeCopyAgent(
            nodeId,
            new RangeCopyRequests(zk, layout),
            new RingHistory(zk, layout),
            initial,
            core::ringVersion,
            copier,
            ATTEMPT_TIMEOUT,
            registered);
    String name = "frsm.membership.copy";
    metrics.counter(
        name, "range copies this node imported by request", "event", "done", agent::completed);
    metrics.counter(
        name,
        "range copies this node recorded as failed (the change stops)",
        "event",
        "failed",
        agent::failed);
    metrics.counter(
        name,
        "copy requests this node refused (malformed, or not its own to run)",
        "event",
        "refused",
        agent::refused);
    agent.start();
    return agent;
  }
}
