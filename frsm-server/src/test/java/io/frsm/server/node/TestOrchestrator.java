package io.frsm.server.node;

import io.frsm.server.membership.ChangeSettings;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.time.Duration;
import java.util.function.IntPredicate;
import org.apache.curator.framework.CuratorFramework;

/**
 * A membership orchestrator over a {@link TestCluster}'s ZooKeeper, as an operator's tool runs one.
 */
final class TestOrchestrator {
  private TestOrchestrator() {}

  /**
   * The orchestrator of {@code cluster}'s changes from its formed ring on; {@code newNode} says
   * which ids it knows as registered nodes that may be added (their addresses do not matter to it),
   * and each wait of a change may take {@code stepTimeout}.
   */
  static MembershipOrchestrator of(
      CuratorFramework zk, TestCluster cluster, IntPredicate newNode, Duration stepTimeout)
      throws Exception {
    return of(zk, cluster, newNode, ChangeSettings.of(stepTimeout));
  }

  /** As above, with the changes' step size too. */
  static MembershipOrchestrator of(
      CuratorFramework zk, TestCluster cluster, IntPredicate newNode, ChangeSettings settings)
      throws Exception {
    ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
    return new MembershipOrchestrator(
        zk,
        layout,
        ClusterShape.read(zk, layout),
        RingVersion.initial(cluster.ring().placement()),
        id -> newNode.test(id) ? new NodeInfo(id, "", 0, 0, "") : null,
        settings);
  }
}
