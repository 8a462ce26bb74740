package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.cell.Token;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication factor is a setting, 3 by default: a five-node cluster with replication factor 5
 * keeps every key on all five nodes and needs three of them; a single node with replication factor
 * 1 serves alone; and a node configured with another replication factor than its formed cluster's
 * is refused at start with an error naming {@code ring.replicationFactor}.
 */
class ReplicationFactorIT {
  private static final Duration RECOVERY = Duration.ofSeconds(60);

  @Test
  void fiveNodes_withReplicationFactorFive_replicateEveryKeyOnAllFive_andNeedThree(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 5, 5)) {
      Ring ring = cluster.ring();
      assertEquals(5, ring.replicationFactor());
      for (int r = 0; r < ring.rangeCount(); r++) {
        assertEquals(Set.of(1, 2, 3, 4, 5), Set.copyOf(ring.replicasOfRange(r)), "range " + r);
      }

      // Every operation, through the thin client and each node's embedded client.
      FrsmClient thin = cluster.thinClient();
      Map<String, Version> kept = new TreeMap<>();
      for (int i = 0; i < 20; i++) {
        String name = "rf5/" + i;
        byte[] key = name.getBytes(UTF_8);
        FrsmClient client = i % 2 == 0 ? thin : cluster.node(1 + i % 5).client();
        Version created = client.create(key, "a".getBytes(UTF_8));
        Version replaced = client.cas(key, created, "b".getBytes(UTF_8));
        assertTrue(replaced.compareTo(created) > 0);
        CasMismatchException stale =
            assertThrows(
                CasMismatchException.class, () -> client.cas(key, created, "c".getBytes(UTF_8)));
        assertEquals(replaced, stale.current().orElseThrow().version());
        Versioned read = client.get(key).orElseThrow();
        assertArrayEquals("b".getBytes(UTF_8), read.value());
        assertEquals(replaced, read.version());
        Versioned fenced = client.fence(key).orElseThrow();
        assertTrue(fenced.version().compareTo(replaced) > 0, "a fence moves the version on");
        if (i % 5 == 0) {
          client.delete(key, fenced.version());
          assertFalse(client.get(key).isPresent(), name + " deleted");
        } else {
          kept.put(name, fenced.version());
        }
        if (client != thin) {
          client.close();
        }
      }

      // Each write reached a quorum of three of its five replicas; the keys spread over all five.
      Set<Integer> storing = new java.util.TreeSet<>();
      for (String name : kept.keySet()) {
        int copies = 0;
        for (int id = 1; id <= 5; id++) {
          if (cluster.node(id).engine().get(Key.of(name.getBytes(UTF_8))) != null) {
            copies++;
            storing.add(id);
          }
        }
        assertTrue(copies >= 3, name + " is stored on " + copies + " of 5 nodes, not a quorum");
      }
      assertEquals(Set.of(1, 2, 3, 4, 5), storing, "nodes storing some key");

      // Two of five down: three replicas are a quorum, so every range still reads and writes.
      cluster.crash(4);
      cluster.crash(5);
      for (Map.Entry<String, Version> e : kept.entrySet()) {
        Versioned read = eventually(() -> thin.get(e.getKey().getBytes(UTF_8)).orElseThrow());
        assertArrayEquals("b".getBytes(UTF_8), read.value(), e.getKey());
        // Not necessarily equal: where the fence's accepts reached a crashed node, fewer than a
        // quorum of the survivors hold it, and the read settles the value again one step later.
        assertTrue(read.version().compareTo(e.getValue()) >= 0, e.getKey() + " " + read.version());
      }
      for (byte[] probe : oneKeyPerRange(ring, "rf5-two-down/")) {
        Version v = eventually(() -> createOrFind(thin, probe));
        assertNotNull(v);
      }

      // Three of five down: two replicas are not a quorum, so a write cannot complete.
      cluster.crash(3);
      byte[] key = "rf5-three-down".getBytes(UTF_8);
      assertThrows(FrsmException.class, () -> thin.create(key, "x".getBytes(UTF_8)));
    }
  }

  @Test
  void oneNode_withReplicationFactorOne_servesAlone(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 1, 1)) {
      assertEquals(1, cluster.ring().replicationFactor());
      FrsmClient thin = cluster.thinClient();
      byte[] key = "rf1".getBytes(UTF_8);
      Version v1 = thin.create(key, "one".getBytes(UTF_8));
      Version v2 = thin.cas(key, v1, "two".getBytes(UTF_8));
      assertArrayEquals("two".getBytes(UTF_8), thin.get(key).orElseThrow().value());
      thin.delete(key, v2);
      assertFalse(thin.get(key).isPresent());
    }
  }

  @Test
  void aNodeConfiguredWithAnotherReplicationFactor_thanTheFormedCluster_failsToStart(
      @TempDir Path dir) throws Exception {
    String clusterId = "rf-mismatch";
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        CuratorFramework zk =
            CuratorFrameworkFactory.newClient(zookeeper.connectString(), new RetryOneTime(100))) {
      zk.start();
      ZkLayout layout = new ZkLayout(clusterId);
      // The cluster formed with nodes 1-3 and replication factor 3.
      List<ClusterShape.Member> members = new ArrayList<>();
      for (int id = 1; id <= 3; id++) {
        members.add(new ClusterShape.Member(id, "rack-" + id));
      }
      // T and ε as the nodes below run them (the builder's defaults), so only the RF differs.
      ClusterTiming timing = new ClusterTiming(Duration.ofSeconds(5), Duration.ofMillis(250));
      ClusterShape.createIfAbsent(zk, layout, new ClusterShape(16, 3, members, timing));

      FrsmNode misconfigured = node(dir, zookeeper, clusterId, 2);
      IllegalStateException e = assertThrows(IllegalStateException.class, misconfigured::start);
      misconfigured.close();
      assertTrue(e.getMessage().contains("ring.replicationFactor"), e.getMessage());
      assertTrue(e.getMessage().contains("formed with replication factor 3"), e.getMessage());
      assertNull(zk.checkExists().forPath(layout.member(1)), "a refused node is never a member");

      // The same node configured like the cluster gets past the check and registers.
      try (FrsmNode matching = node(dir, zookeeper, clusterId, 3)) {
        matching.start();
        assertNotNull(zk.checkExists().forPath(layout.member(1)));
      }
    }
  }

  /**
   * A node refused for its replication factor, in a cluster whose shape an earlier version wrote
   * (v2: no T and ε yet), is refused before it publishes its T and ε there: a misconfigured node
   * must not fix the cluster's timing for every node after it.
   */
  @Test
  void aRefusedNode_neverPublishesItsTimingIntoAnOldShape(@TempDir Path dir) throws Exception {
    String clusterId = "rf-old-shape";
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        CuratorFramework zk =
            CuratorFrameworkFactory.newClient(zookeeper.connectString(), new RetryOneTime(100))) {
      zk.start();
      ZkLayout layout = new ZkLayout(clusterId);
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.shape(), "v2|16|3|1:rack-1,2:rack-2,3:rack-3".getBytes(UTF_8));

      FrsmNode misconfigured = node(dir, zookeeper, clusterId, 2);
      IllegalStateException e = assertThrows(IllegalStateException.class, misconfigured::start);
      misconfigured.close();
      assertTrue(e.getMessage().contains("ring.replicationFactor"), e.getMessage());
      assertNull(ClusterShape.read(zk, layout).timing(), "the refused node published nothing");

      try (FrsmNode matching = node(dir, zookeeper, clusterId, 3)) {
        matching.start();
        assertEquals(
            new ClusterTiming(Duration.ofSeconds(5), Duration.ofMillis(250)),
            ClusterShape.read(zk, layout).timing(),
            "the first node that belongs publishes its T and ε");
      }
    }
  }

  private static FrsmNode node(
      Path dir, EmbeddedZooKeeper zookeeper, String clusterId, int replicationFactor) {
    return FrsmNode.builder()
        .nodeId(1)
        .clusterId(clusterId)
        .dataDirectory(dir.resolve("node-1-rf" + replicationFactor))
        .zookeeper(zookeeper.connectString())
        .zookeeperSessionTimeout(Duration.ofSeconds(3))
        .replicationFactor(replicationFactor)
        .transportThreads(1)
        .drainTimeout(Duration.ZERO)
        .insecure(true) // about the ring, not the wire
        .build();
  }

  /** One key in each ring range. */
  private static List<byte[]> oneKeyPerRange(Ring ring, String prefix) {
    Map<Integer, byte[]> probes = new TreeMap<>();
    for (int i = 0; probes.size() < ring.rangeCount(); i++) {
      byte[] key = (prefix + i).getBytes(UTF_8);
      probes.putIfAbsent(ring.rangeIndexOf(Token.of(key)), key);
    }
    return List.copyOf(probes.values());
  }

  /** Creates {@code key}, or finds it created by an earlier attempt whose outcome was unknown. */
  private static Version createOrFind(FrsmClient client, byte[] key) {
    try {
      return client.create(key, "p".getBytes(UTF_8));
    } catch (io.frsm.api.KeyExistsException earlierAttemptWon) {
      return client.get(key).orElseThrow().version();
    }
  }

  /**
   * The first result of {@code call} that does not fail: while a crashed node's ranges move to a
   * surviving replica (its ZooKeeper session ends, the successor waits L·(1+ρ)), operations on them
   * may time out.
   */
  private static <T> T eventually(java.util.function.Supplier<T> call) {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (true) {
      try {
        return call.get();
      } catch (FrsmException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("still failing after " + RECOVERY, e);
        }
        // A refusal can come back at once (no leader known yet): poll, do not spin.
        java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
      }
    }
  }
}
