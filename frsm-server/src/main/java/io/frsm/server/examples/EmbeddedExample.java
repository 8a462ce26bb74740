package io.frsm.server.examples;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZooKeeperCredential;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Embedding frsm: a three-node cluster in one JVM, a few operations through a node's embedded
 * client and through a remote client started from the nodes' addresses (seeds), then a clean
 * shutdown. Against the ZooKeeper given with {@code --zookeeper}, or one it starts in the data
 * directory when none is given.
 *
 * <p>Run (from the repository root; {@code EmbeddedExampleIT} runs the same {@link #run}):
 *
 * <pre>{@code
 * ./mvnw -B -q -ntp -pl frsm-server -am package -DskipTests
 * java -cp frsm-server/target/frsm.jar io.frsm.server.examples.EmbeddedExample \
 *     [--zookeeper HOST:PORT] [--dir DIR] [--cluster ID]
 * }</pre>
 *
 * {@code --dir} holds the nodes' data (default: a new temporary directory); running again with the
 * same directory, ZooKeeper and cluster id restarts the same cluster. {@code --cluster} (default
 * {@code example}) keeps it apart from other clusters on a shared ZooKeeper.
 */
public final class EmbeddedExample {
  private static final int NODES = 3;

  private EmbeddedExample() {}

  public static void main(String[] args) throws Exception {
    try {
      run(args, System.out);
    } catch (IllegalArgumentException usage) {
      System.err.println(usage.getMessage());
      System.err.println(
          "usage: EmbeddedExample [--zookeeper HOST:PORT] [--dir DIR] [--cluster ID]");
      System.exit(2);
    }
  }

  /** The example, printing to {@code out}; returns once every node is closed. */
  public static void run(String[] args, PrintStream out) throws Exception {
    String zookeeperConnect = null;
    Path dir = null;
    String clusterId = "example";
    for (int i = 0; i < args.length; i++) {
      if (i + 1 == args.length) {
        throw new IllegalArgumentException("missing value after " + args[i]);
      }
      switch (args[i]) {
        case "--zookeeper" -> zookeeperConnect = args[++i];
        case "--dir" -> dir = Path.of(args[++i]);
        case "--cluster" -> clusterId = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (dir == null) {
      dir = Files.createTempDirectory("frsm-example");
    }
    out.println("data in " + dir);
    if (zookeeperConnect != null) {
      runCluster(zookeeperConnect, clusterId, dir, out);
      return;
    }
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"))) {
      out.println("started ZooKeeper at " + zookeeper.connectString());
      runCluster(zookeeper.connectString(), clusterId, dir, out);
    }
  }

  private static void runCluster(String zookeeper, String clusterId, Path dir, PrintStream out)
      throws Exception {
    List<FrsmNode> nodes = new ArrayList<>();
    // Mutual TLS as in production: a CA of the example's own, a certificate per node naming it
    // (frsm://node/<id>?cluster=<id>), and one for the thin client with the roles it needs.
    Path certs = dir.resolve("certs");
    Duration validity = Duration.ofDays(1);
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(certs, clusterId, validity);
    // The identity the nodes authenticate to ZooKeeper with: their znodes grant it alone access.
    Path zookeeperCredential = certs.resolve("zookeeper.credential");
    if (!Files.exists(zookeeperCredential)) {
      ZooKeeperCredential.create(zookeeperCredential, "frsm-example");
    }
    try {
      for (int id = 1; id <= NODES; id++) {
        TlsFiles tls = ca.issueNode(certs, clusterId, id, validity);
        FrsmNode node =
            FrsmNode.builder()
                .nodeId(id)
                .clusterId(clusterId)
                .dataDirectory(dir.resolve("node-" + id))
                .zookeeper(zookeeper)
                .tls(tls.caBundle(), tls.certificateChain(), tls.privateKey())
                .zookeeperCredentialFile(zookeeperCredential)
                .build();
        nodes.add(node);
        node.start(); // returns once registered; the cluster forms with the third node
      }
      for (FrsmNode node : nodes) {
        node.awaitReady(Duration.ofSeconds(60));
        out.printf(
            "node %d (boot %d): peers at %s, clients at %s%n",
            node.nodeId(),
            node.boot(),
            hostPort(node.peerAddress()),
            hostPort(node.clientAddress()));
      }

      byte[] key = utf8("greeting");
      try (FrsmClient embedded = nodes.get(0).client()) {
        Version v1 = embedded.create(key, utf8("hello"));
        Version v2 = embedded.cas(key, v1, utf8("hello, world"));
        out.println("created at " + v1 + ", replaced at " + v2);
        try {
          embedded.cas(key, v1, utf8("stale"));
          out.println("stale CAS succeeded: this must not happen");
        } catch (CasMismatchException e) {
          out.println("stale CAS refused; the key is at " + e.current().orElseThrow().version());
        }
      }
      TlsFiles app =
          ca.issue(
              certs,
              "client-example",
              new CertificateIdentity.Client(
                  clusterId, "example", EnumSet.of(Role.READ, Role.WRITE)),
              validity);
      // A remote client needs only frsm-client, some nodes' addresses (seeds) and its certificate;
      // the nodes run in this process, so loopback reaches their client ports.
      String seeds =
          String.join(
              ",", nodes.stream().map(n -> "127.0.0.1:" + n.clientAddress().getPort()).toList());
      try (FrsmClient thin =
          FrsmClient.builder()
              .seeds(seeds)
              .clusterId(clusterId)
              .tls(app.caBundle(), app.certificateChain(), app.privateKey())
              .build()) {
        Versioned read = thin.get(key).orElseThrow();
        out.println(
            "thin client reads \""
                + new String(read.value(), StandardCharsets.UTF_8)
                + "\" at "
                + read.version());
        thin.delete(key, read.version());
        out.println("deleted; present now: " + thin.get(key).isPresent());
      }
    } finally {
      for (FrsmNode node : nodes) {
        node.close(); // drains, deregisters, stops the transports, flushes the engine
      }
      out.println("stopped " + nodes.size() + " nodes");
    }
  }

  private static String hostPort(java.net.InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
