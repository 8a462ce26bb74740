package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Requests of a repair against a real ZooKeeper: what is stored, and what is refused and why. */
class RepairRequestIT {
  @Test
  void repairThatLeavesTooFewHealthyVoters_isRefused_aHealthyOneIsStored(@TempDir Path dir)
      throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk =
            CuratorFrameworkFactory.newClient(
                server.connectString(), new ExponentialBackoffRetry(100, 5))) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      List<NodeInfo> nodes = new ArrayList<>();
      List<ClusterShape.Member> members = new ArrayList<>();
      for (int id = 1; id <= 3; id++) {
        nodes.add(new NodeInfo(id, "", 0, 0, ""));
        members.add(new ClusterShape.Member(id, ""));
      }
      Placement formed = Ring.of(0, nodes, 4, 3).placement();
      ZkLayout layout = new ZkLayout("repair-test");
      MembershipOrchestrator orchestrator =
          new MembershipOrchestrator(
              zk,
              layout,
              new ClusterShape(4, 3, members),
              RingVersion.initial(formed),
              id -> null,
              ChangeSettings.of(Duration.ofSeconds(5)));
      // Node 2 is quarantined in range 0 (its record, as its agent writes it).
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.membershipQuarantined(2), "0".getBytes(StandardCharsets.UTF_8));
      IllegalArgumentException refused =
          assertThrows(
              IllegalArgumentException.class, () -> orchestrator.requestRepair(1, List.of(0, 1)));
      assertTrue(
          refused.getMessage().contains("range 0 with 1 healthy voters"), refused.getMessage());
      assertTrue(refused.getMessage().contains("[2]"), refused.getMessage());
      assertEquals(null, orchestrator.pending(), "nothing stored");

      // A forged record counts its node as unhealthy everywhere.
      zk.setData().forPath(layout.membershipQuarantined(2), "x".getBytes(StandardCharsets.UTF_8));
      assertThrows(IllegalArgumentException.class, () -> orchestrator.requestRepair(1, List.of(1)));

      zk.delete().forPath(layout.membershipQuarantined(2));
      MembershipChange stored = orchestrator.requestRepair(1, List.of(0, 1));
      assertEquals(stored, orchestrator.pending());
      assertThrows(IllegalStateException.class, () -> orchestrator.requestRepair(3, List.of(2)));
    }
  }
}
