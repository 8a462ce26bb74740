package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.SecureZooKeeper;
import io.frsm.server.zk.ZooKeeperTls;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The previous process's ZooKeeper session (docs/FORMATS.md "ZK-SESSION"): the record's format,
 * hostile contents refused, and ending a live session removes its ephemeral znodes at once, while
 * an ended or unknown one changes nothing.
 */
class PreviousSessionTest {
  private static final Duration WITHIN = Duration.ofSeconds(10);

  @Test
  void aRecord_readsBackAsWritten_readableByItsOwnerOnly(@TempDir Path dir) throws Exception {
    byte[] password = new byte[16];
    for (int i = 0; i < password.length; i++) {
      password[i] = (byte) (i * 37);
    }
    PreviousSession.record(dir, new PreviousSession.Saved(0x100002a5c8e0003L, password));
    PreviousSession.Saved read = PreviousSession.read(dir);
    assertNotNull(read);
    assertEquals(0x100002a5c8e0003L, read.id());
    assertArrayEquals(password, read.password());
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(dir.resolve(PreviousSession.FILE_NAME))));
    assertEquals("0x100002a5c8e0003", read.toString(), "the password never shows");
    // A newer record replaces it.
    PreviousSession.record(dir, new PreviousSession.Saved(-1L, new byte[] {1}));
    assertEquals(-1L, PreviousSession.read(dir).id());
  }

  @Test
  void anythingElseInTheFile_isIgnored(@TempDir Path dir) throws Exception {
    assertNull(PreviousSession.read(dir), "no file");
    String ok = "v1 1a 00112233445566778899aabbccddeeff\n";
    assertNotNull(PreviousSession.parse(ok));
    for (String bad :
        List.of(
            "",
            "v1 1a 0011\n\n",
            "v1 1a 0011",
            "v2 1a 0011\n",
            "v1 1A 0011\n",
            "v1 -1a 0011\n",
            "v1 11112222333344445 0011\n",
            "v1 1a 001\n",
            "v1 1a \n",
            "v1  1a 0011\n",
            "v1 1a 0011 extra\n",
            "v1 1a " + "00".repeat(65) + "\n",
            "v1 1a 0g\n")) {
      assertThrows(IllegalArgumentException.class, () -> PreviousSession.parse(bad), bad);
      Files.writeString(dir.resolve(PreviousSession.FILE_NAME), bad, StandardCharsets.US_ASCII);
      assertNull(PreviousSession.read(dir), bad);
    }
    Files.write(dir.resolve(PreviousSession.FILE_NAME), new byte[4096]);
    assertNull(PreviousSession.read(dir), "an oversized file");
  }

  @Test
  void endingALiveSession_removesItsEphemeralZnodesAtOnce(@TempDir Path dir) throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir.resolve("zk"))) {
      CountDownLatch connected = new CountDownLatch(1);
      CountDownLatch expired = new CountDownLatch(1);
      // The "previous process": a session with a long timeout that is never closed by its owner.
      ZooKeeper previous =
          new ZooKeeper(
              server.connectString(),
              30_000,
              e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                  connected.countDown();
                } else if (e.getState() == KeeperState.Expired) {
                  expired.countDown();
                }
              });
      try {
        assertTrue(connected.await(30, TimeUnit.SECONDS));
        previous.create("/member", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        PreviousSession.Saved saved =
            new PreviousSession.Saved(previous.getSessionId(), previous.getSessionPasswd());
        assertTrue(PreviousSession.end(saved, server.connectString(), WITHIN, null, 1));
        try (Observer observer = new Observer(server.connectString())) {
          assertNull(observer.zk.exists("/member", false), "the ephemeral znode went with it");
        }
        assertTrue(expired.await(30, TimeUnit.SECONDS), "its owner learns the session ended");
        // Ended already: nothing to do.
        assertFalse(PreviousSession.end(saved, server.connectString(), WITHIN, null, 1));
      } finally {
        previous.close();
      }
      // A session the ensemble never knew.
      assertFalse(
          PreviousSession.end(
              new PreviousSession.Saved(0x7777L, new byte[16]),
              server.connectString(),
              WITHIN,
              null,
              1));
    }
  }

  /**
   * Over TLS to ZooKeeper (the node's {@code zookeeper.tls.*}): the same, through the Netty client.
   */
  @Test
  void endingALiveSession_overTls(@TempDir Path dir) throws Exception {
    TestTls tls = TestTls.create(dir.resolve("certs"), TestCluster.CLUSTER_ID);
    io.frsm.client.transport.tls.TlsFiles client =
        tls.client("zookeeper", io.frsm.client.transport.tls.Role.READ);
    Path keyStore = dir.resolve("zookeeper-client.pem");
    Files.writeString(
        keyStore,
        Files.readString(client.privateKey()) + Files.readString(client.certificateChain()));
    try (SecureZooKeeper server =
        SecureZooKeeper.start(dir.resolve("secure-zk"), client.caBundle())) {
      ZooKeeperTls zkTls = new ZooKeeperTls(server.serverCa(), null, keyStore, null, true);
      CountDownLatch connected = new CountDownLatch(1);
      ZooKeeper previous =
          new ZooKeeper(
              server.secureConnectString(),
              30_000,
              e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                  connected.countDown();
                }
              },
              zkTls.clientConfig());
      try {
        assertTrue(connected.await(30, TimeUnit.SECONDS));
        previous.create("/member", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        PreviousSession.Saved saved =
            new PreviousSession.Saved(previous.getSessionId(), previous.getSessionPasswd());
        assertTrue(PreviousSession.end(saved, server.secureConnectString(), WITHIN, zkTls, 1));
        assertFalse(PreviousSession.end(saved, server.secureConnectString(), WITHIN, zkTls, 1));
      } finally {
        previous.close();
      }
    }
  }

  /** A session of its own, to look at the tree. */
  private static final class Observer implements AutoCloseable {
    final ZooKeeper zk;

    Observer(String connectString) throws Exception {
      CountDownLatch connected = new CountDownLatch(1);
      zk =
          new ZooKeeper(
              connectString,
              30_000,
              e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
      assertTrue(connected.await(30, TimeUnit.SECONDS));
    }

    @Override
    public void close() throws InterruptedException {
      zk.close();
    }
  }
}
