package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose id is retired but which keeps running (its operator did not stop it) still holds a
 * ZooKeeper session: its membership agent must refuse to orchestrate the next change rather than
 * compete for the lock and publish versions for a cluster it is no member of.
 */
class RetiredOrchestratorIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aRetiredNodeStillRunning_refusesToOrchestrate_theChangeStaysForTheMembers(@TempDir Path dir)
      throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk =
            CuratorFrameworkFactory.newClient(
                server.connectString(), new ExponentialBackoffRetry(100, 5))) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      List<NodeInfo> nodes = new ArrayList<>();
      List<ClusterShape.Member> members = new ArrayList<>();
      for (int id = 1; id <= 4; id++) {
        nodes.add(new NodeInfo(id, "", 0, 0, ""));
        members.add(new ClusterShape.Member(id, ""));
      }
      Placement formed = Ring.of(0, nodes, 4, 3).placement();
      ZkLayout layout = new ZkLayout("retired-test");
      RingVersion initial = RingVersion.initial(formed);
      // Node 4 was decommissioned: the three versions of that change are in the history.
      RingHistory history = new RingHistory(zk, layout);
      MembershipPlan decommission =
          MembershipPlan.between(
              initial, MembershipPlan.votersOver(formed, nodes.subList(0, 3), 4, 3), Set.of(4));
      RingVersion previous = initial;
      for (RingVersion step : decommission.steps()) {
        assertTrue(history.publish(previous, step));
        previous = step;
      }
      assertTrue(previous.retired().contains(4));

      MembershipOrchestrator orchestrator =
          new MembershipOrchestrator(
              zk,
              layout,
              new ClusterShape(4, 3, members),
              initial,
              id -> id == 5 ? new NodeInfo(5, "", 0, 0, "") : null,
              ChangeSettings.of(Duration.ofSeconds(5)));
      MembershipChange add = orchestrator.request(Kind.ADD, 5, -1);

      try (MembershipAgent retired = new MembershipAgent(4, zk, layout, orchestrator)) {
        retired.start();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!retired.refusesAsRetired()) {
          assertTrue(System.nanoTime() < deadline, "node 4 found itself retired in time");
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        assertEquals(-1, orchestrator.orchestratingNode(), "node 4 never named itself");
        assertNull(
            zk.checkExists().forPath(layout.membershipLock()), "it never competed for the lock");
        assertEquals(add, orchestrator.pending(), "the change waits for a member to run it");
        assertEquals(previous.version(), orchestrator.newest().version(), "nothing published");
      }
    }
  }
}
