package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: ZooKeeper was world-writable, so an anonymous session could rewrite a live node's
 * member record (the address peers and clients dial). Nodes now authenticate with their credential
 * and every znode they create grants it alone all permissions (and the reader identity read): an
 * anonymous session and one with the wrong password can neither read nor change anything; the
 * reader can read but not write; the cluster keeps serving.
 */
class ZooKeeperAclIT {
  @Test
  void onlyTheNodesIdentity_changesFrsmZnodes_andOnlyItAndTheReader_readThem(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      String connect = cluster.zookeeperConnectString();
      ZooKeeperCredential node = ZooKeeperCredential.read(cluster.zooKeeperCredentialFile());
      ZooKeeperCredential reader =
          ZooKeeperCredential.read(cluster.zooKeeperReaderCredentialFile());
      List<ACL> expected = ZooKeeperAccess.acl(node, reader);

      try (CuratorFramework nodeSession = started(cluster.zooKeeperClient());
          CuratorFramework anonymous =
              started(CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100)));
          CuratorFramework wrongPassword =
              started(session(connect, ZooKeeperCredential.of(node.user() + ":not-the-password")));
          CuratorFramework readerSession = started(session(connect, reader))) {
        // Every znode the nodes made — records, markers, shape, terms, lease generations, latch
        // entries — carries the ACL: nothing is open to the world.
        List<String> all = new ArrayList<>();
        walk(nodeSession, "/frsm", all);
        assertTrue(all.size() > 10, "the cluster's znodes: " + all);
        assertTrue(all.contains(layout.member(1)) && all.contains(layout.shape()), all.toString());
        assertTrue(all.stream().anyMatch(p -> p.contains("/latch/")), all.toString());
        for (String path : all) {
          assertEquals(expected, nodeSession.getACL().forPath(path), path);
        }
        byte[] record = nodeSession.getData().forPath(layout.member(1));

        for (CuratorFramework stranger : List.of(anonymous, wrongPassword)) {
          for (String path : all) {
            assertThrows(
                KeeperException.NoAuthException.class,
                () -> stranger.getData().forPath(path),
                "read " + path);
            assertThrows(
                KeeperException.NoAuthException.class,
                () -> stranger.setData().forPath(path, "evil:1".getBytes(UTF_8)),
                "write " + path);
          }
          assertThrows(
              KeeperException.NoAuthException.class,
              () -> stranger.getChildren().forPath(layout.members()));
          assertThrows(
              KeeperException.NoAuthException.class,
              () -> stranger.delete().forPath(layout.member(1)));
          assertThrows(
              KeeperException.NoAuthException.class,
              () ->
                  stranger
                      .create()
                      .withMode(CreateMode.EPHEMERAL)
                      .forPath(layout.member(9), "evil".getBytes(UTF_8)));
          assertThrows(
              KeeperException.NoAuthException.class,
              () ->
                  stranger.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(layout.member(1)));
        }

        // The reader reads what a client needs, and changes nothing.
        assertArrayEquals(record, readerSession.getData().forPath(layout.member(1)));
        assertEquals(3, readerSession.getChildren().forPath(layout.members()).size());
        assertThrows(
            KeeperException.NoAuthException.class,
            () -> readerSession.setData().forPath(layout.member(1), "evil".getBytes(UTF_8)));
        assertThrows(
            KeeperException.NoAuthException.class,
            () -> readerSession.delete().forPath(layout.member(1)));
        assertThrows(
            KeeperException.NoAuthException.class,
            () -> readerSession.create().forPath(layout.member(9), "evil".getBytes(UTF_8)));

        assertArrayEquals(record, nodeSession.getData().forPath(layout.member(1)), "unchanged");
      }

      // A client finds the cluster through ZooKeeper with the reader identity, not without one.
      TlsFiles admin = cluster.tls().admin();
      try (FrsmClient client =
          FrsmClient.builder()
              .zookeeper(connect)
              .zookeeperCredential(cluster.zooKeeperReaderCredentialFile())
              .clusterId(TestCluster.CLUSTER_ID)
              .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
              .build()) {
        Version v = client.create("acl".getBytes(UTF_8), "ok".getBytes(UTF_8));
        assertEquals(v, client.get("acl".getBytes(UTF_8)).orElseThrow().version());
      }
      FrsmException anonymousClient =
          assertThrows(
              FrsmException.class,
              () ->
                  FrsmClient.builder()
                      .zookeeper(connect)
                      .clusterId(TestCluster.CLUSTER_ID)
                      .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
                      .build()
                      .close());
      assertTrue(
          anonymousClient.getMessage().contains("give zookeeperCredential(file)"),
          String.valueOf(anonymousClient));
      assertFalse(cluster.thinClient().get("acl".getBytes(UTF_8)).isEmpty(), "still serving");
    }
  }

  private static CuratorFramework session(String connect, ZooKeeperCredential credential) {
    return ZooKeeperAccess.builder(connect, credential).retryPolicy(new RetryOneTime(100)).build();
  }

  private static CuratorFramework started(CuratorFramework zk) throws InterruptedException {
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
      zk.close();
      throw new AssertionError("ZooKeeper unreachable");
    }
    return zk;
  }

  /** {@code path} and every znode below it, parents first. */
  private static void walk(CuratorFramework zk, String path, List<String> out) throws Exception {
    out.add(path);
    List<String> children;
    try {
      children = zk.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException gone) {
      return;
    }
    for (String child : children) {
      walk(zk, path + "/" + child, out);
    }
  }
}
