package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ZooKeeperAccess}: what a node's session creates carries the node's ACL, parents included;
 * znodes an unauthenticated node left open are secured before the node registers; znodes of another
 * identity stop it with an error naming them.
 */
class ZooKeeperAccessIT {
  private static final ZooKeeperCredential NODE = ZooKeeperCredential.of("frsm-node:password-1");

  @Test
  void createdZnodes_andTheirParents_carryTheNodesAcl(@TempDir Path dir) throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework node = started(nodeSession(server));
        CuratorFramework anonymous = started(anonymous(server))) {
      ZkLayout layout = new ZkLayout("made");
      node.create().creatingParentContainersIfNeeded().forPath(layout.term("0"), new byte[12]);
      List<ACL> acl = ZooKeeperAccess.acl(NODE, null);
      for (String path :
          List.of("/frsm", layout.root(), layout.ranges(), layout.range("0"), layout.term("0"))) {
        assertEquals(acl, node.getACL().forPath(path), path);
        assertThrows(
            KeeperException.NoAuthException.class, () -> anonymous.getData().forPath(path), path);
      }
    }
  }

  @Test
  void openZnodesOfAnEarlierNode_areSecured_once(@TempDir Path dir) throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework anonymous = started(anonymous(server));
        CuratorFramework node = started(nodeSession(server))) {
      ZkLayout layout = new ZkLayout("old");
      List<String> open =
          List.of(layout.member(1), layout.shape(), layout.term("3"), layout.leaseGeneration("3"));
      for (String path : open) {
        anonymous.create().creatingParentsIfNeeded().forPath(path, "x".getBytes(UTF_8));
      }
      assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, anonymous.getACL().forPath(layout.root()));

      ZooKeeperAccess.secureExisting(node, layout, NODE, ZooKeeperAccess.acl(NODE, null));
      List<ACL> acl = ZooKeeperAccess.acl(NODE, null);
      for (String path :
          List.of(
              "/frsm",
              layout.root(),
              layout.members(),
              layout.member(1),
              layout.shape(),
              layout.ranges(),
              layout.range("3"),
              layout.term("3"),
              layout.leaseGeneration("3"))) {
        assertEquals(acl, node.getACL().forPath(path), path);
        assertThrows(
            KeeperException.NoAuthException.class,
            () -> anonymous.setData().forPath(path, "evil".getBytes(UTF_8)),
            path);
      }
      // Secured already: a second start changes nothing (the ACL version stays).
      Stat before = node.checkExists().forPath(layout.member(1));
      ZooKeeperAccess.secureExisting(node, layout, NODE, ZooKeeperAccess.acl(NODE, null));
      assertEquals(
          before.getAversion(), node.checkExists().forPath(layout.member(1)).getAversion());

      // A new reader identity is added to every znode by the next start.
      ZooKeeperCredential reader = ZooKeeperCredential.of("frsm-reader:password-2");
      ZooKeeperAccess.secureExisting(node, layout, NODE, ZooKeeperAccess.acl(NODE, reader));
      assertEquals(ZooKeeperAccess.acl(NODE, reader), node.getACL().forPath(layout.member(1)));
    }
  }

  @Test
  void znodesOfAnotherIdentity_stopTheNode_namingThem(@TempDir Path dir) throws Exception {
    ZooKeeperCredential other = ZooKeeperCredential.of("someone-else:password-3");
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir);
        CuratorFramework foreign =
            started(
                ZooKeeperAccess.builder(server.connectString(), other, null)
                    .retryPolicy(new RetryOneTime(100))
                    .build());
        CuratorFramework node = started(nodeSession(server))) {
      ZkLayout layout = new ZkLayout("taken");
      foreign.create().creatingParentsIfNeeded().forPath(layout.member(1), new byte[0]);
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () ->
                  ZooKeeperAccess.secureExisting(
                      node, layout, NODE, ZooKeeperAccess.acl(NODE, null)));
      assertTrue(e.getMessage().contains("belongs to another identity"), e.getMessage());
      assertTrue(e.getMessage().contains(layout.root()), e.getMessage());
    }
  }

  private static CuratorFramework nodeSession(EmbeddedZooKeeper server) {
    return ZooKeeperAccess.builder(server.connectString(), NODE, null)
        .retryPolicy(new RetryOneTime(100))
        .build();
  }

  private static CuratorFramework anonymous(EmbeddedZooKeeper server) {
    return CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100));
  }

  private static CuratorFramework started(CuratorFramework zk) throws InterruptedException {
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
      zk.close();
      throw new AssertionError("ZooKeeper unreachable");
    }
    return zk;
  }
}
