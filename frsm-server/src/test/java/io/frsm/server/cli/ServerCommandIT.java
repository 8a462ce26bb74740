package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.metrics.Scrape;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZooKeeperCredential;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code frsm server}'s {@code metrics.port} wiring, in process: the node a config file describes
 * serves its own meters and {@code /health} on the configured port (on {@code metrics.bindAddress},
 * loopback by default), {@code /health} turns 200 once the cluster formed, and a graceful stop
 * closes the endpoint. {@code metrics.port: 0} starts no endpoint.
 */
class ServerCommandIT {
  private static final Duration READY = Duration.ofSeconds(60);

  private EmbeddedZooKeeper zookeeper;
  private ServerCommand.Server server;
  private final List<FrsmNode> peers = new ArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    peers.forEach(FrsmNode::close);
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @Test
  void server_withAMetricsPort_servesItsNodesMeters_andHealth(@TempDir Path dir) throws Exception {
    zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
    server = startServerOnAFreeMetricsPort(dir);
    InetSocketAddress metrics = server.metricsAddress();

    // Alone, the node waits for the cluster to form: it does not serve yet.
    assertEquals(503, Scrape.health(metrics));
    Scrape lonely = Scrape.of(metrics);
    assertTrue(lonely.sum("frsm_lsm_memtable_bytes") >= 0, "the engine's meters");
    assertEquals(0, lonely.sum("frsm_operations_seconds_count"), "the node's meters");
    assertTrue(lonely.sum("jvm_memory_used_bytes") > 0, "the JVM's meters");

    for (int id = 2; id <= 3; id++) {
      TlsFiles tls = authority(dir).issueNode(dir.resolve("certs"), "server-it", id, VALIDITY);
      FrsmNode peer =
          FrsmNode.builder()
              .tls(tls.caBundle(), tls.certificateChain(), tls.privateKey())
              .zookeeperCredentialFile(zooKeeperCredential(dir))
              .nodeId(id)
              .clusterId("server-it")
              .dataDirectory(dir.resolve("node-" + id))
              .zookeeper(zookeeper.connectString())
              .zookeeperSessionTimeout(Duration.ofSeconds(3))
              .rack("rack" + id)
              .transportThreads(1)
              .build();
      peers.add(peer);
      peer.start();
    }
    server.node().awaitReady(READY);
    awaitHealth(metrics, 200);
    // Its leadership meters move: the node leads the ranges it is the natural leader of.
    awaitTrue(() -> Scrape.of(metrics).sum("frsm_ranges_led") > 0, "node 1 leads ranges");
    Scrape formed = Scrape.of(metrics);
    assertEquals(
        4, formed.samples("frsm_peer_messages_total").size(), "sent and received, per peer");

    server.close();
    assertFalse(server.node().serving());
    assertThrows(IOException.class, () -> Scrape.health(metrics), "the endpoint is closed");
  }

  @Test
  void metricsPortZero_startsNoEndpoint(@TempDir Path dir) throws Exception {
    FrsmConfig config = ConfigLoader.load(writeConfig(dir, "127.0.0.1:1", 0), Map.of());
    try (ServerCommand.Server s = ServerCommand.Server.create(config)) {
      assertNull(s.metricsAddress());
    }
  }

  /**
   * A config's metrics port cannot be 0 (that turns the endpoint off): pick a free port, and pick
   * again in the unlikely case another process took it before the endpoint bound it.
   */
  private ServerCommand.Server startServerOnAFreeMetricsPort(Path dir) throws Exception {
    for (int attempt = 1; ; attempt++) {
      int port = freeLoopbackPort();
      Path file = writeConfig(dir, zookeeper.connectString(), port);
      ServerCommand.Server s;
      try {
        s = ServerCommand.Server.create(ConfigLoader.load(file, Map.of()));
      } catch (BindException taken) {
        if (attempt == 5) {
          throw taken;
        }
        continue;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      s.start(new PrintStream(out, true, StandardCharsets.UTF_8));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertTrue(printed.contains(", metrics 127.0.0.1:" + port), printed);
      assertEquals(port, s.metricsAddress().getPort());
      assertTrue(
          s.metricsAddress().getAddress().isLoopbackAddress(),
          "bound on metrics.bindAddress, loopback by default");
      return s;
    }
  }

  private static final Duration VALIDITY = Duration.ofDays(1);

  /** The test's CA in {@code <dir>/certs}: the server runs mutual TLS from its file, as shipped. */
  private static CertificateAuthority authority(Path dir) throws IOException {
    return CertificateAuthority.loadOrCreate(dir.resolve("certs"), "server-it", VALIDITY);
  }

  /** The cluster's ZooKeeper identity, in a file of the test's own as an operator would keep it. */
  private static Path zooKeeperCredential(Path dir) throws IOException {
    Path file = dir.resolve("zookeeper.credential");
    if (!Files.exists(file)) {
      ZooKeeperCredential.create(file, "frsm-server-it");
    }
    return file;
  }

  private static Path writeConfig(Path dir, String zookeeperConnect, int metricsPort)
      throws IOException {
    TlsFiles tls = authority(dir).issueNode(dir.resolve("certs"), "server-it", 1, VALIDITY);
    Path file = dir.resolve("frsm-" + metricsPort + ".yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "cluster:",
            "  id: server-it",
            "  initialNodes: 3",
            "node:",
            "  id: 1",
            "  rack: rack1",
            "  dataDirectory: " + dir.resolve("node-1"),
            "  peerAddress: 127.0.0.1:0",
            "  clientAddress: 127.0.0.1:0",
            "zookeeper:",
            "  connect: " + zookeeperConnect,
            "  sessionTimeout: 3s",
            "  credentialFile: " + zooKeeperCredential(dir),
            "security:",
            "  caBundle: " + tls.caBundle(),
            "  certificateChain: " + tls.certificateChain(),
            "  privateKey: " + tls.privateKey(),
            "metrics:",
            "  port: " + metricsPort,
            ""),
        StandardCharsets.UTF_8);
    return file;
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }

  private static void awaitHealth(InetSocketAddress metrics, int status) throws Exception {
    awaitTrue(() -> Scrape.health(metrics) == status, "/health " + status);
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void awaitTrue(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + READY.toNanos();
    while (!check.holds()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + READY + " waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
