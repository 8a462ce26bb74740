package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.consensus.core.Message;
import io.frsm.transport.BadFrames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24's attack on a TLS cluster: an attacker on the network sends a sound {@code Commit} that
 * would overwrite a key on every replica — over plaintext, over TLS without a certificate, with a
 * certificate of another CA, with a client's certificate, with a member's certificate claiming to
 * be another member, and with a sound certificate of a node outside the cluster. Each changes
 * nothing on any replica, and each is counted ({@code frsm.security.refused}) and logged. A client
 * whose certificate grants read only is refused a mutation with a clear error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostilePeerIT {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final byte[] KEY = "hostile/victim".getBytes(UTF_8);
  private static final byte[] VALUE = "sound".getBytes(UTF_8);
  private static final byte[] EVIL = "evil".getBytes(UTF_8);

  /** Loggers whose warnings say a connection or message was refused. */
  private static final List<String> LOGGERS =
      List.of(
          "io.frsm.client.transport.tls.MutualTls",
          "io.frsm.transport.PeerInboundHandler",
          "io.frsm.transport.OperationAuthorizer",
          FrsmNode.class.getName());

  private Path dir;
  private TestCluster cluster;
  private Version written;
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final List<Logger> loggers = new ArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
            Object[] p = r.getParameters() == null ? new Object[0] : r.getParameters();
            warnings.add(MessageFormat.format(r.getMessage(), p));
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    this.dir = dir;
    cluster = new TestCluster(dir);
    written = cluster.thinClient().create(KEY, VALUE);
    Await.until(
        () -> everyReplica().stream().allMatch(c -> c != null && c.accepted() != null),
        DEADLINE,
        "the value on every replica");
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void captureWarnings() {
    for (String name : LOGGERS) {
      Logger l = Logger.getLogger(name);
      l.addHandler(capture);
      loggers.add(l);
    }
  }

  @AfterEach
  void stopCapturing() {
    loggers.forEach(l -> l.removeHandler(capture));
    loggers.clear();
    warnings.clear();
  }

  @Test
  void plaintextPeerFrame_isRefusedAtTheHandshake() throws Exception {
    int target = 1;
    double before = refused(target, "handshake");
    try (Socket socket = new Socket()) {
      socket.connect(cluster.node(target).peerAddress(), (int) DEADLINE.toMillis());
      socket.getOutputStream().write(evilCommit(2));
      socket.getOutputStream().flush();
    }
    awaitRefused(target, "handshake", before, "refused TLS connection");
    assertNothingChanged();
  }

  @Test
  void tlsWithoutACertificate_isRefused() throws Exception {
    int target = 2;
    double before = refused(target, "handshake");
    attempt(TlsSockets.context(null, cluster.tls().node(1)), target, evilCommit(1));
    awaitRefused(target, "handshake", before, "refused TLS connection");
    assertNothingChanged();
  }

  @Test
  void aCertificateOfAnotherCa_isRefused() throws Exception {
    int target = 3;
    TestTls other = TestTls.create(dir.resolve("other-ca"), TestCluster.CLUSTER_ID);
    double before = refused(target, "handshake");
    attempt(TlsSockets.context(other.node(1), cluster.tls().node(1)), target, evilCommit(1));
    awaitRefused(target, "handshake", before, "refused TLS connection");
    assertNothingChanged();
  }

  @Test
  void aClientCertificate_onThePeerPort_isRefused() throws Exception {
    int target = 1;
    TlsFiles admin = cluster.tls().admin();
    double before = refused(target, "identity");
    attempt(TlsSockets.context(admin, admin), target, evilCommit(2));
    awaitRefused(target, "identity", before, "where a node was expected");
    assertNothingChanged();
  }

  @Test
  void nodeA_claimingToBeNodeB_isRefused() throws Exception {
    int target = 1;
    TlsFiles nodeTwo = cluster.tls().node(2);
    double before = refused(target, "sender_not_certificate");
    attempt(TlsSockets.context(nodeTwo, nodeTwo), target, evilCommit(3));
    awaitRefused(target, "sender_not_certificate", before, "a frame claims node 3");
    assertNothingChanged();
  }

  @Test
  void aNodeOutsideTheCluster_isRefused() throws Exception {
    int target = 2;
    TlsFiles outsider = cluster.tls().node(9);
    double before = refused(target, "unknown_node");
    attempt(TlsSockets.context(outsider, outsider), target, evilCommit(9));
    // (The capture formats the line again, which drops the apostrophe of "cluster's".)
    awaitRefused(target, "unknown_node", before, "which is not in the cluster");
    assertNothingChanged();
  }

  @Test
  void aClientWithoutTheWriteRole_isRefusedMutations_andMayRead() throws Exception {
    FrsmClient reader =
        cluster.thinClient(Duration.ofSeconds(10), cluster.tls().client("reader", Role.READ));
    assertArrayEquals(VALUE, reader.get(KEY).orElseThrow().value(), "read is granted");
    double before = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      before += refused(id, "role");
    }
    InvalidRequestException denied =
        assertThrows(InvalidRequestException.class, () -> reader.cas(KEY, written, EVIL));
    assertTrue(denied.getMessage().contains("permission denied"), denied.getMessage());
    assertTrue(denied.getMessage().contains("write"), denied.getMessage());
    assertThrows(InvalidRequestException.class, () -> reader.fence(KEY), "a fence writes");
    double after = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      after += refused(id, "role");
    }
    assertTrue(after >= before + 2, "refusals counted: " + before + " -> " + after);
    Await.until(
        () -> warnings.stream().anyMatch(w -> w.contains("needs the write role")),
        DEADLINE,
        "the refusal logged");
    assertNothingChanged();
  }

  @Test
  void aClientWithoutTheReadRole_isRefusedTheTopologyWatch_andCannotConnect() throws Exception {
    TlsFiles writer = cluster.tls().client("writer", Role.WRITE);
    double before = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      before += refused(id, "role");
    }
    FrsmException refusedWatch =
        assertThrows(
            FrsmException.class,
            () ->
                FrsmClient.builder()
                    .seeds(cluster.seeds())
                    .clusterId(TestCluster.CLUSTER_ID)
                    .connectTimeout(Duration.ofSeconds(5))
                    .tls(writer.caBundle(), writer.certificateChain(), writer.privateKey())
                    .build()
                    .close());
    assertTrue(
        refusedWatch.getMessage().contains("needs the read role")
            || refusedWatch.getMessage().contains("lacks the read role"),
        refusedWatch.getMessage());
    double after = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      after += refused(id, "role");
    }
    assertTrue(after >= before + 1, "the refused watch counted: " + before + " -> " + after);
    assertNothingChanged();
  }

  /** A sound Commit of EVIL over the victim key, as node {@code sender} would send it. */
  private byte[] evilCommit(int sender) {
    long round = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) * 2;
    Message commit =
        new Message.Commit(
            Key.of(KEY),
            AcceptedValue.live(
                written.epoch(),
                written.timestamp() + 100,
                new Ballot(round, sender, 1),
                EVIL,
                true));
    return BadFrames.peerFrame(TestCluster.CLUSTER_ID, sender, commit);
  }

  /** Sends {@code frame} over TLS to {@code target}'s peer port; the node may refuse any step. */
  private void attempt(SSLContext tls, int target, byte[] frame) {
    InetSocketAddress address = cluster.node(target).peerAddress();
    try {
      TlsSockets.send(tls, address, frame, DEADLINE);
    } catch (IOException refusedDuringHandshake) {
      // The node refused before the frame was written: what the test wants; counted below.
    }
  }

  private double refused(int node, String reason) {
    return cluster
        .node(node)
        .meterRegistry()
        .get("frsm.security.refused")
        .tag("reason", reason)
        .functionCounter()
        .count();
  }

  private void awaitRefused(int node, String reason, double before, String logged) {
    Await.until(
        () -> refused(node, reason) > before,
        DEADLINE,
        "node " + node + " to count a refusal for " + reason);
    Await.until(
        () -> warnings.stream().anyMatch(w -> w.contains(logged)),
        DEADLINE,
        "a warning containing '" + logged + "' (got " + warnings + ")");
  }

  /** The key's cell on every replica (null where it is absent). */
  private List<Cell> everyReplica() {
    List<Cell> cells = new ArrayList<>();
    for (int id = 1; id <= cluster.size(); id++) {
      try {
        cells.add(cluster.node(id).engine().get(Key.of(KEY)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return cells;
  }

  /** Every replica still holds the written value at its version, and a client reads it. */
  private void assertNothingChanged() {
    for (Cell cell : everyReplica()) {
      AcceptedValue chosen = cell.accepted();
      assertEquals(written.epoch(), chosen.epoch(), "epoch on a replica");
      assertEquals(written.timestamp(), chosen.timestamp(), "timestamp on a replica");
      assertArrayEquals(VALUE, chosen.valueUnsafe(), "value on a replica");
    }
    Versioned read = cluster.thinClient().get(KEY).orElseThrow();
    assertEquals(written, read.version());
    assertArrayEquals(VALUE, read.value());
  }
}
