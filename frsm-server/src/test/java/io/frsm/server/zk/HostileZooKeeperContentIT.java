package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.ring.NodeInfo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readers of ZooKeeper state against znodes a buggy or hostile writer planted (ACLs keep
 * strangers out; this is what remains if the cluster's own credential leaks or a tool writes
 * garbage): every reader refuses the bad znode with a clear error and keeps reading the good ones.
 */
class HostileZooKeeperContentIT {
  private static final ZooKeeperCredential NODE = ZooKeeperCredential.of("frsm-node:password-1");
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @Test
  void forgedMembersAndReadyMarkers_areIgnored_andTheRealOnesStillSeen(@TempDir Path dir)
      throws Exception {
    ZkLayout layout = new ZkLayout("hostile");
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk = started(server);
        MembershipRegistry registry = new MembershipRegistry(zk, layout)) {
      NodeInfo one = new NodeInfo(1, "127.0.0.1", 7401, 7501, "r1");
      registry.register(one);
      registry.markReady(1);
      plant(zk, layout.members() + "/evil", MembershipRegistry.encode(one));
      plant(zk, layout.member(7), "x|y".getBytes(UTF_8));
      plant(zk, layout.member(8), "evil host|1|2|r".getBytes(UTF_8));
      plant(zk, layout.member(9), new byte[MembershipRegistry.MAX_RECORD_BYTES + 1]);
      plant(zk, layout.ready() + "/junk", new byte[0]);
      plant(zk, layout.ready(2), "unreachable:x".getBytes(UTF_8));

      assertEquals(List.of(one), registry.members());
      assertEquals(Set.of(1, 2), registry.readyNodes());

      // The watches report the real member and markers, and keep reporting changes.
      List<List<NodeInfo>> seen = new CopyOnWriteArrayList<>();
      List<Map<Integer, Set<Integer>>> ready = new CopyOnWriteArrayList<>();
      registry.watch(seen::add);
      registry.watchReady(ready::add);
      NodeInfo three = new NodeInfo(3, "127.0.0.1", 7403, 7503, "r3");
      registry.register(three);
      await(() -> !seen.isEmpty() && seen.get(seen.size() - 1).equals(List.of(one, three)));
      await(
          () ->
              !ready.isEmpty()
                  && ready.get(ready.size() - 1).equals(Map.of(1, Set.of(), 2, Set.of())));
    }
  }

  @Test
  void garbledTerms_areRefusedWithTheirPath_notBumpedPastTheMaximum(@TempDir Path dir)
      throws Exception {
    ZkLayout layout = new ZkLayout("hostile");
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk = started(server)) {
      RangeTermStore terms = new RangeTermStore(zk, layout, System::nanoTime);
      assertTrue(terms.bumpTerm("0", 1).isPresent(), "a clean range bumps");

      zk.setData().forPath(layout.term("0"), new byte[5]);
      IllegalArgumentException shortTerm =
          assertThrows(IllegalArgumentException.class, () -> terms.current("0"));
      assertTrue(shortTerm.getMessage().contains(layout.term("0")), shortTerm.getMessage());
      assertThrows(IllegalArgumentException.class, () -> terms.bumpTerm("0", 1));

      byte[] atMaximum = ByteBuffer.allocate(12).putLong(Long.MAX_VALUE).putInt(2).array();
      zk.setData().forPath(layout.term("0"), atMaximum);
      assertThrows(IllegalArgumentException.class, () -> terms.bumpTerm("0", 1));
      assertEquals(
          Long.MAX_VALUE,
          ByteBuffer.wrap(zk.getData().forPath(layout.term("0"))).getLong(),
          "never wrapped to a negative term");

      // Other ranges are untouched by one range's bad znode.
      assertEquals(1, terms.bumpTerm("1", 1).orElseThrow().term());
    }
  }

  @Test
  void aGarbledShape_isRefusedOnRead(@TempDir Path dir) throws Exception {
    ZkLayout layout = new ZkLayout("hostile");
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk = started(server)) {
      plant(zk, layout.shape(), "v3|2147483647|3|5000000|250000|1:a,2:b,3:c".getBytes(UTF_8));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ClusterShape.read(zk, layout));
      assertTrue(e.getMessage().contains("vnodes"), e.getMessage());
    }
  }

  private static void plant(CuratorFramework zk, String path, byte[] data) throws Exception {
    zk.create()
        .creatingParentContainersIfNeeded()
        .withMode(CreateMode.PERSISTENT)
        .forPath(path, data);
  }

  private static CuratorFramework started(EmbeddedZooKeeper server) throws InterruptedException {
    CuratorFramework zk =
        ZooKeeperAccess.builder(server.connectString(), NODE, null)
            .retryPolicy(new RetryOneTime(100))
            .build();
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
      zk.close();
      throw new AssertionError("ZooKeeper unreachable");
    }
    return zk;
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + DEADLINE);
      }
      Thread.onSpinWait();
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
