package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminRequest.ChangeMembership;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.client.transport.tls.TlsProviders;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.node.FrsmNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code frsm admin} against a local cluster secured as in production (mutual TLS): status and
 * ring, a refused decommission, adding a joining node and decommissioning it with --wait,
 * compactions; a certificate without the admin role is refused admin commands but still reads and
 * writes; malformed admin requests get clean refusals and the node keeps serving.
 */
class AdminCommandIT {
  private static final Duration ANSWER = Duration.ofSeconds(30);

  @Test
  void admin_runsAMembershipChangeAndRefusesWhatIsUnsafe(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, LocalCommand.CLUSTER_ID, 3)) {
      FrsmNode joining = cluster.startJoining();
      assertEquals(4, joining.nodeId());
      TlsFiles admin = cluster.adminClientFiles();
      String seeds = HostPort.of(cluster.node(1).clientAddress());

      FrsmRun status = admin(seeds, admin, "status");
      assertEquals(0, status.exitCode(), status.out() + status.err());
      assertTrue(row(status.out(), 1, "member"), status.out());
      assertTrue(row(status.out(), 4, "joining candidate"), status.out());
      assertTrue(status.out().contains("membership change: none"), status.out());
      FrsmRun json = admin(seeds, admin, "status", "--json");
      assertEquals(0, json.exitCode(), json.out());
      assertTrue(json.out().strip().startsWith("{\"ringVersion\":0,"), json.out());
      assertTrue(json.out().contains("\"id\":4,"), json.out());
      FrsmRun ring = admin(seeds, admin, "ring");
      assertEquals(0, ring.exitCode(), ring.out());
      assertTrue(ring.out().startsWith("ring version 0 (newest)"), ring.out());
      assertTrue(ring.out().contains("VOTERS"), ring.out());

      // Three members at RF 3: none may leave.
      FrsmRun tooFew = admin(seeds, admin, "decommission", "1");
      assertEquals(1, tooFew.exitCode(), tooFew.out());
      assertTrue(tooFew.out().startsWith("refused: "), tooFew.out());
      assertTrue(tooFew.out().contains("fewer than"), tooFew.out());
      FrsmRun unknown = admin(seeds, admin, "add-node", "99");
      assertEquals(1, unknown.exitCode(), unknown.out());
      assertTrue(unknown.out().startsWith("refused: "), unknown.out());

      FrsmRun added = admin(seeds, admin, "add-node", "4", "--wait", "--timeout", "PT3M");
      assertEquals(0, added.exitCode(), added.out() + added.err());
      assertTrue(added.out().startsWith("accepted: add node 4"), added.out());
      assertTrue(added.out().contains("done: ring version "), added.out());
      joining.awaitReady(Duration.ofMinutes(1));
      FrsmRun grown = admin(seeds, admin, "status");
      assertTrue(row(grown.out(), 4, "member"), grown.out());

      FrsmRun removed = admin(seeds, admin, "decommission", "4", "--wait", "--timeout", "PT3M");
      assertEquals(0, removed.exitCode(), removed.out() + removed.err());
      assertTrue(removed.out().contains("done: ring version "), removed.out());
      FrsmRun shrunk = admin(seeds, admin, "status");
      assertTrue(row(shrunk.out(), 4, "retired"), shrunk.out());
      assertTrue(shrunk.out().contains("membership change: none"), shrunk.out());

      FrsmRun compacted = admin(seeds, admin, "compact", "--all");
      assertEquals(0, compacted.exitCode(), compacted.out());
      for (int id = 1; id <= 3; id++) {
        assertTrue(compacted.out().contains("node " + id + ": compacted"), compacted.out());
      }
      FrsmRun one = admin(seeds, admin, "compact", "--node", "2");
      assertEquals(0, one.exitCode(), one.out());
      assertEquals("node 2: compacted", one.out().strip());
      FrsmRun neither = admin(seeds, admin, "compact");
      assertEquals(2, neither.exitCode());
    }
  }

  @Test
  void admin_needsTheAdminRole_andMalformedRequestsAreRefusedCleanly(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, LocalCommand.CLUSTER_ID, 3)) {
      String seeds = HostPort.of(cluster.node(1).clientAddress());
      TlsFiles readWrite =
          CertificateAuthority.load(LocalCluster.certificateDirectory(dir))
              .issue(
                  LocalCluster.certificateDirectory(dir),
                  "client-app",
                  new CertificateIdentity.Client(
                      LocalCommand.CLUSTER_ID, "app", EnumSet.of(Role.READ, Role.WRITE)),
                  Duration.ofDays(1));
      FrsmRun denied = admin(seeds, readWrite, "status");
      assertEquals(1, denied.exitCode(), denied.out());
      assertTrue(denied.out().contains("permission denied"), denied.out());
      assertTrue(denied.out().contains("admin role"), denied.out());
      FrsmRun deniedChange = admin(seeds, readWrite, "add-node", "4");
      assertEquals(1, deniedChange.exitCode(), deniedChange.out());
      assertTrue(deniedChange.out().contains("permission denied"), deniedChange.out());
      try (FrsmClient app =
          FrsmClient.builder()
              .seeds(seeds)
              .clusterId(LocalCommand.CLUSTER_ID)
              .tls(readWrite.caBundle(), readWrite.certificateChain(), readWrite.privateKey())
              .build()) {
        app.create(bytes("k"), bytes("v"));
        assertEquals(
            "v", new String(app.get(bytes("k")).orElseThrow().value(), StandardCharsets.UTF_8));
      }

      TlsFiles admin = cluster.adminClientFiles();
      try (TransportEventLoops loops = TransportEventLoops.create(1, false);
          ClientProtocolClient raw =
              ClientProtocolClient.connect(
                  cluster.node(2).clientAddress(),
                  TransportConfig.builder(LocalCommand.CLUSTER_ID).build(),
                  loops,
                  new MutualTls(
                      TlsContexts.load(
                          new TlsFiles(
                              admin.caBundle(), admin.certificateChain(), admin.privateKey()),
                          TlsProviders.preferred(),
                          Duration.ofMinutes(1)),
                      LocalCommand.CLUSTER_ID,
                      Duration.ofSeconds(10)))) {
        assertRefused(raw, AdminRequest.getDefaultInstance(), "needs a command");
        assertRefused(raw, change(ChangeMembership.Kind.KIND_UNSPECIFIED, 4, 0), "needs a kind");
        assertRefused(raw, change(ChangeMembership.Kind.ADD, -5, 0), "out of range");
        assertRefused(raw, change(ChangeMembership.Kind.REPLACE, 1, -1), "out of range");
        assertRefused(raw, change(ChangeMembership.Kind.ADD, 4, 7), "replace only");
        assertRefused(raw, change(ChangeMembership.Kind.DECOMMISSION, 77, 0), "77");
        assertRefused(raw, change(ChangeMembership.Kind.REPLACE, 2, 2), "itself");
        AdminRequest unknownKind =
            AdminRequest.newBuilder()
                .setChangeMembership(ChangeMembership.newBuilder().setKindValue(99).setNodeId(4))
                .build();
        assertRefused(raw, unknownKind, "needs a kind");
        // The node still answers, and serves.
        AdminResponse status =
            raw.admin(
                    AdminRequest.newBuilder()
                        .setStatus(AdminRequest.Status.getDefaultInstance())
                        .build(),
                    ANSWER)
                .get(ANSWER.toSeconds() + 5, TimeUnit.SECONDS);
        assertEquals(2, status.getStatus().getSelf().getNodeId(), status.toString());
      }
      try (FrsmClient client = cluster.thinClient()) {
        assertTrue(client.get(bytes("k")).isPresent());
      }
    }
  }

  @Test
  void replace_aDeadNode_throughZooKeeper(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, LocalCommand.CLUSTER_ID, 3)) {
      TlsFiles admin = cluster.adminClientFiles();
      // frsm's znodes are closed to anonymous sessions: the reader identity frsm local made.
      String zk = cluster.zookeeperConnect();
      String reader = cluster.zookeeperReaderCredentialFile().toString();
      cluster.kill(3);
      FrsmNode fresh = cluster.startJoining();
      FrsmRun before =
          adminVia("--zookeeper", zk, admin, "status", "--zookeeper-credential", reader);
      assertEquals(0, before.exitCode(), before.out() + before.err());
      assertTrue(row(before.out(), 3, "down"), before.out());
      assertTrue(row(before.out(), 4, "joining candidate"), before.out());
      FrsmRun replaced =
          adminVia(
              "--zookeeper",
              zk,
              admin,
              "replace",
              "3",
              "--with",
              "4",
              "--wait",
              "--timeout",
              "PT3M",
              "--zookeeper-credential",
              reader);
      assertEquals(0, replaced.exitCode(), replaced.out() + replaced.err());
      assertTrue(replaced.out().startsWith("accepted: replace node 3 with node 4"), replaced.out());
      assertTrue(replaced.out().contains("done: ring version "), replaced.out());
      fresh.awaitReady(Duration.ofMinutes(1));
      FrsmRun after =
          adminVia("--zookeeper", zk, admin, "status", "--zookeeper-credential", reader);
      assertTrue(row(after.out(), 3, "retired"), after.out());
      assertTrue(row(after.out(), 4, "member"), after.out());
      FrsmRun again =
          adminVia(
              "--zookeeper",
              zk,
              admin,
              "replace",
              "3",
              "--with",
              "4",
              "--zookeeper-credential",
              reader);
      assertEquals(1, again.exitCode(), again.out());
      assertTrue(again.out().startsWith("refused: "), again.out());
    }
  }

  private static void assertRefused(ClientProtocolClient raw, AdminRequest request, String reason)
      throws Exception {
    AdminResponse answer = raw.admin(request, ANSWER).get(ANSWER.toSeconds() + 5, TimeUnit.SECONDS);
    assertTrue(answer.hasRefused(), request + " -> " + answer);
    assertTrue(answer.getRefused().contains(reason), answer.getRefused());
  }

  private static AdminRequest change(ChangeMembership.Kind kind, int node, int replacement) {
    return AdminRequest.newBuilder()
        .setChangeMembership(
            ChangeMembership.newBuilder()
                .setKind(kind)
                .setNodeId(node)
                .setReplacementId(replacement))
        .build();
  }

  /** Whether the status table has a row for {@code node} in {@code state}. */
  private static boolean row(String table, int node, String state) {
    return Pattern.compile("(?m)^" + node + "\\s+\\S+\\s+" + Pattern.quote(state) + "(\\s|$)")
        .matcher(table)
        .find();
  }

  private static FrsmRun admin(String seeds, TlsFiles tls, String... command) {
    return adminVia("--seeds", seeds, tls, command);
  }

  private static FrsmRun adminVia(String target, String address, TlsFiles tls, String... command) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "admin",
                target,
                address,
                "--cluster",
                LocalCommand.CLUSTER_ID,
                "--ca",
                tls.caBundle().toString(),
                "--cert",
                tls.certificateChain().toString(),
                "--key",
                tls.privateKey().toString()));
    args.addAll(List.of(command));
    return FrsmRun.of(args);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
