package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.Placement;
import io.frsm.server.zk.RangeSettleRequests;
import io.frsm.server.zk.RangeSettler;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's side of the ring history (docs/PROTOCOL.md "Membership changes", "The server's
 * side"), driven by hand as an orchestrator would: a version with a learner, published into
 * ZooKeeper, is installed and acknowledged by every node; a settle asked of the range is run by its
 * holder and answered; a restarted node starts at the newest version; a forged version is refused
 * and no node stops.
 */
class RingHistoryIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aPublishedVersion_isInstalledEverywhere_settledByTheHolder_andKeptOverARestart(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 4, 3);
        CuratorFramework zk = connect(cluster)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      RangeSettleRequests settles = new RangeSettleRequests(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      for (int id = 1; id <= 4; id++) {
        assertEquals(0, cluster.node(id).ringVersion(), "formed at version 0");
      }

      // Keys in every range before the change, so the settle has something to read.
      FrsmClient client = cluster.node(1).client();
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        byte[] key = ("ring-history/" + i).getBytes(StandardCharsets.UTF_8);
        client.create(key, new byte[] {(byte) i});
        keys.add(key);
      }

      // Range 0 gains as a learner the one node that is not among its voters (4 nodes, RF 3).
      int range = 0;
      List<Integer> voters = formed.replicas(range);
      int learner =
          formed.nodes().stream().filter(n -> !voters.contains(n)).findFirst().orElseThrow();
      RingVersion v1 =
          new RingVersion(formed.withRange(1, range, voters, List.of(learner)), Set.of());
      assertTrue(history.publish(initial, v1));
      assertFalse(history.publish(initial, v1), "a version is published once");

      Await.until(
          () -> holds(() -> installedEverywhere(cluster, history, 1)),
          WAIT,
          "every node to install and acknowledge ring version 1");

      new RangeSettler(settles).settle(1, List.of(range), WAIT);
      int settledBy = settles.get(1, range, null).settledBy();
      assertTrue(voters.contains(settledBy), "settled by a voter, the holder: " + settledBy);

      for (byte[] key : keys) {
        assertTrue(client.get(key).isPresent(), "every key still reads after the change");
      }

      // The restart rule: a node comes back at the newest version, not at its shape's version 0.
      int restarted = voters.get(1);
      cluster.crash(restarted);
      FrsmNode again = cluster.restart(restarted);
      assertEquals(1, again.ringVersion(), "restarted at the newest version");
      assertEquals(1L, history.installed().get(restarted));
    }
  }

  @Test
  void aForgedVersion_isRefused_andNoNodeStops(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, 3);
        CuratorFramework zk = connect(cluster)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);

      // Damaged bytes at version 1, then an unsafe step (two voters swapped at once) at version 1
      // of another cluster's history: neither is installed.
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.ringVersion(1), new byte[] {1, 2, 3});
      Await.until(
          () -> holds(() -> history.installedAtLeast(0).size() == 3),
          WAIT,
          "every node to acknowledge the version it started with");
      assertEquals(List.of(initial), history.read(initial, null), "the damaged entry is refused");

      zk.delete().forPath(layout.ringVersion(1));
      List<Integer> voters = formed.replicas(0);
      Placement twoAtOnce = formed.withRange(1, 0, List.of(voters.get(0), 7, 8), List.of());
      zk.create()
          .forPath(
              layout.ringVersion(1),
              io.frsm.server.zk.RingVersionCodec.encode(new RingVersion(twoAtOnce, Set.of())));
      assertEquals(List.of(initial), history.read(initial, null), "the unsafe step is refused");

      FrsmClient client = cluster.node(1).client();
      client.create("after-forgery".getBytes(StandardCharsets.UTF_8), new byte[] {1});
      for (int id = 1; id <= 3; id++) {
        assertTrue(cluster.node(id).serving(), "node " + id + " still serves");
        assertEquals(0, cluster.node(id).ringVersion(), "node " + id + " stays at version 0");
      }
    }
  }

  private static boolean installedEverywhere(TestCluster cluster, RingHistory history, long v)
      throws Exception {
    for (int id = 1; id <= cluster.size(); id++) {
      if (cluster.node(id).ringVersion() < v) {
        return false;
      }
    }
    return history.installedAtLeast(v).size() == cluster.size();
  }

  private static boolean holds(java.util.concurrent.Callable<Boolean> condition) {
    try {
      return condition.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static CuratorFramework connect(TestCluster cluster) throws InterruptedException {
    // The nodes' identity: frsm's znodes are closed to anyone else (docs/OPERATIONS.md "ZooKeeper
    // authentication").
    CuratorFramework zk = cluster.zooKeeperClient();
    zk.start();
    assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
    return zk;
  }
}
