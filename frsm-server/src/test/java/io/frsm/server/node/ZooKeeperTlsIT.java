package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.config.ZooKeeperKeys;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.SecureZooKeeper;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.frsm.server.zk.ZooKeeperTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: TLS to ZooKeeper as an option. Three nodes form a cluster through a ZooKeeper whose
 * only port they dial is secure (it requires a client certificate of the nodes' CA, and its own
 * certificate, of another CA, names 127.0.0.1: host names are verified); a node that dials that
 * port in plaintext does not start, and says why; a session with the TLS settings reads what the
 * nodes registered, one without them cannot connect. A client that finds the cluster through that
 * ZooKeeper ({@code FrsmClient.builder().zookeeper(...)}) does so with the same TLS settings and
 * the nodes' reader credential, and says why it cannot without TLS.
 */
class ZooKeeperTlsIT {
  @Test
  void nodesFormACluster_overTlsToZooKeeper_andPlaintextToItsSecurePortFailsClearly(
      @TempDir Path dir) throws Exception {
    TestTls tls = TestTls.create(dir.resolve("certs"), TestCluster.CLUSTER_ID);
    TlsFiles zkClient = tls.client("zookeeper", io.frsm.client.transport.tls.Role.READ);
    // ZooKeeper's PEM key store: the private key and the certificate chain in one file.
    Path keyStore = dir.resolve("zookeeper-client.pem");
    Files.writeString(
        keyStore,
        Files.readString(zkClient.privateKey()) + Files.readString(zkClient.certificateChain()));

    try (SecureZooKeeper zookeeper =
        SecureZooKeeper.start(dir.resolve("secure-zk"), zkClient.caBundle())) {
      ZooKeeperTls zkTls = new ZooKeeperTls(zookeeper.serverCa(), null, keyStore, null, true);
      try (TestCluster cluster =
          TestCluster.withTweaks(
              dir,
              b ->
                  b.zookeeper(zookeeper.secureConnectString())
                      .zookeeperTls(zkTls)
                      // A first TLS session on a loaded 2-core box (JSSE warming up) took 4 s.
                      .zookeeperSessionTimeout(Duration.ofSeconds(20)))) {
        // Formed: ready, every range led and writable (TestCluster waited); it serves.
        Version v = cluster.thinClient().create("tls".getBytes(UTF_8), "zk".getBytes(UTF_8));
        assertEquals(v, cluster.thinClient().get("tls".getBytes(UTF_8)).orElseThrow().version());

        ZooKeeperCredential reader =
            ZooKeeperCredential.read(cluster.zooKeeperReaderCredentialFile());
        try (CuratorFramework secure =
            started(
                ZooKeeperTls.apply(
                        ZooKeeperAccess.builder(zookeeper.secureConnectString(), reader), zkTls)
                    .retryPolicy(new RetryOneTime(100))
                    .build(),
                30)) {
          try (MembershipRegistry registry =
              new MembershipRegistry(secure, new ZkLayout(TestCluster.CLUSTER_ID))) {
            assertEquals(3, registry.members().size(), "every node registered over TLS");
          }
        }

        // A client that finds the nodes through ZooKeeper, over TLS with the reader credential.
        TlsFiles admin = cluster.tls().admin();
        try (FrsmClient viaZooKeeper =
            FrsmClient.builder()
                .zookeeper(zookeeper.secureConnectString())
                .zookeeperCredential(cluster.zooKeeperReaderCredentialFile())
                .zookeeperTls(zookeeper.serverCa(), keyStore)
                .zookeeperSessionTimeout(Duration.ofSeconds(20))
                .clusterId(TestCluster.CLUSTER_ID)
                .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
                .build()) {
          assertEquals(
              v, viaZooKeeper.get("tls".getBytes(UTF_8)).orElseThrow().version(), "it serves");
        }
        // The same client without TLS to ZooKeeper: cannot reach it, and says what to give.
        FrsmException plaintextClient =
            assertThrows(
                FrsmException.class,
                () ->
                    FrsmClient.builder()
                        .zookeeper(zookeeper.secureConnectString())
                        .zookeeperCredential(cluster.zooKeeperReaderCredentialFile())
                        .zookeeperSessionTimeout(Duration.ofSeconds(3))
                        .clusterId(TestCluster.CLUSTER_ID)
                        .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
                        .build());
        assertTrue(
            plaintextClient.getMessage().contains("cannot reach ZooKeeper at")
                && plaintextClient.getMessage().contains("zookeeperTls(trustStore, keyStore)"),
            plaintextClient.getMessage());

        // A plaintext session to the secure port never connects.
        CuratorFramework plain =
            ZooKeeperAccess.builder(zookeeper.secureConnectString(), reader)
                .connectionTimeoutMs(2_000)
                .retryPolicy(new RetryOneTime(100))
                .build();
        try (plain) {
          plain.start();
          assertFalse(plain.blockUntilConnected(3, TimeUnit.SECONDS), "plaintext connected");
        }

        // A node configured without TLS, dialing the secure port: does not start, says why.
        FrsmNode plaintextNode =
            cluster
                .nodeBuilder(4, dir.resolve("node-4"))
                .set(ZooKeeperKeys.TLS_TRUST_STORE, null)
                .set(ZooKeeperKeys.TLS_KEY_STORE, null)
                .zookeeperSessionTimeout(Duration.ofSeconds(3))
                .build();
        IllegalStateException refused =
            assertThrows(IllegalStateException.class, plaintextNode::start);
        String message = String.valueOf(refused.getMessage());
        assertTrue(
            message.contains("cannot reach ZooKeeper at " + zookeeper.secureConnectString())
                && message.contains("plaintext (no zookeeper.tls.trustStore)")
                && message.contains("set zookeeper.tls.trustStore"),
            message);

        assertFalse(
            cluster.thinClient().get("tls".getBytes(UTF_8)).isEmpty(), "the cluster serves on");
      }
    }
  }

  private static CuratorFramework started(CuratorFramework zk, int seconds)
      throws InterruptedException {
    zk.start();
    if (!zk.blockUntilConnected(seconds, TimeUnit.SECONDS)) {
      zk.close();
      throw new AssertionError("ZooKeeper over TLS unreachable");
    }
    return zk;
  }
}
