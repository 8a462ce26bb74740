package io.frsm.server.local;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmClientBuilder;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.node.FrsmNodeBuilder;
import io.frsm.server.node.NaturalLeaders;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZooKeeperCredential;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * An embedded ZooKeeper plus nodes 1..n on loopback (ephemeral ports), each in its own directory
 * under {@code baseDir} with one commit-log directory and a rack of its own: what {@code frsm
 * local} and {@code frsm demo} run, and the frsm side of frsm-bench's experiments. {@link #start}
 * returns once every range is led by its natural leader (the steady state: leases held, reads
 * leader-only).
 *
 * <p>Security: by default the cluster runs mutual TLS like production, with a CA of its own made in
 * {@code <baseDir>/certs} ({@link CertificateAuthority}): node certificates for its nodes, and a
 * client certificate with every role ({@code client-local-admin.pem}) for {@link #thinClient} and
 * {@code frsm cli}. {@link Security#INSECURE} runs plaintext instead (the TLS-off side of the
 * benchmark's A/B).
 *
 * <p>Thread-safety: {@link #node}, {@link #nodes} and {@link #kill} may be called from any thread
 * (a workload's clients route by {@link #node} while another thread kills); {@link #restart} and
 * {@link #close} from one thread at a time.
 */
public final class LocalCluster implements AutoCloseable {
  /** How long start-up and a restart may take before they fail. */
  public static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Short sessions: a killed node's ranges move within seconds instead of the production default's
   * 10 s (docs/OPERATIONS.md "Fail-over timing").
   */
  public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

  /** How the cluster's connections are secured. */
  public enum Security {
    /** Mutual TLS with certificates made for the cluster (the default). */
    TLS,
    /** Plaintext and unauthenticated: {@code security.insecure: true}. */
    INSECURE
  }

  /** The certificates a local cluster makes are valid this long: it runs on a temp directory. */
  static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(30);

  /** The ZooKeeper users of a TLS cluster: the nodes', and the read-only one for clients. */
  static final String NODE_ZOOKEEPER_USER = "frsm-node";

  static final String READER_ZOOKEEPER_USER = "frsm-reader";

  /** The client certificate of {@link #thinClient}: every role. */
  public static final String ADMIN_CLIENT = "local-admin";

  private final Path baseDir;
  private final String clusterId;
  private final EmbeddedZooKeeper zookeeper;
  private final Consumer<FrsmNodeBuilder> settings;

  /** The cluster's CA, or null when it runs {@link Security#INSECURE}. */
  private final CertificateAuthority ca;

  /** Node {@code id} at index {@code id - 1}; null while it is killed. */
  private final AtomicReferenceArray<FrsmNode> nodes;

  /** Nodes started later with {@code cluster.join: true} (ids size+1, size+2, ...), in order. */
  private final List<FrsmNode> joining = new java.util.concurrent.CopyOnWriteArrayList<>();

  private LocalCluster(
      Path baseDir,
      String clusterId,
      EmbeddedZooKeeper zookeeper,
      int size,
      Consumer<FrsmNodeBuilder> settings,
      CertificateAuthority ca) {
    this.ca = ca;
    this.baseDir = baseDir;
    this.clusterId = clusterId;
    this.zookeeper = zookeeper;
    this.settings = settings;
    this.nodes = new AtomicReferenceArray<>(size);
  }

  /** Starts {@code size} nodes with the node's defaults (but for the short sessions). */
  public static LocalCluster start(Path baseDir, String clusterId, int size) throws Exception {
    return start(baseDir, clusterId, size, b -> {});
  }

  /**
   * Starts {@code size} nodes; {@code settings} tunes each node's builder after the cluster set its
   * identity, directories, addresses, ZooKeeper and rack.
   */
  public static LocalCluster start(
      Path baseDir, String clusterId, int size, Consumer<FrsmNodeBuilder> settings)
      throws Exception {
    return start(baseDir, clusterId, size, settings, Security.TLS);
  }

  /** As above, secured as {@code security} says. */
  public static LocalCluster start(
      Path baseDir,
      String clusterId,
      int size,
      Consumer<FrsmNodeBuilder> settings,
      Security security)
      throws Exception {
    CertificateAuthority ca =
        security == Security.TLS
            ? CertificateAuthority.loadOrCreate(
                certificateDirectory(baseDir), clusterId, CERTIFICATE_VALIDITY)
            : null;
    LocalCluster cluster =
        new LocalCluster(
            baseDir,
            clusterId,
            EmbeddedZooKeeper.start(baseDir.resolve("zookeeper")),
            size,
            settings,
            ca);
    try {
      List<FrsmNode> started = new ArrayList<>();
      for (int id = 1; id <= size; id++) {
        FrsmNode n = cluster.newNode(id);
        cluster.nodes.set(id - 1, n);
        n.start();
        started.add(n);
      }
      for (FrsmNode n : started) {
        n.awaitReady(READY_TIMEOUT);
      }
      // The steady state (leases, leader-only reads) starts once the early nodes handed their
      // stand-in ranges back to the natural leaders.
      NaturalLeaders.await(started, READY_TIMEOUT);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Where a cluster on {@code baseDir} keeps its CA and certificates. */
  public static Path certificateDirectory(Path baseDir) {
    return baseDir.resolve("certs");
  }

  /**
   * Starts one more node, id {@code size() + 1 +} the joining nodes started before, with {@code
   * cluster.join: true}: it registers and waits until an operator adds it ({@code frsm admin
   * add-node ID}). Returns once it registered; it serves once added.
   */
  public synchronized FrsmNode startJoining() throws IOException {
    int id = nodes.length() + joining.size() + 1;
    FrsmNode n = newNode(id);
    try {
      n.start();
    } catch (IOException | RuntimeException e) {
      n.close();
      throw e;
    }
    joining.add(n);
    return n;
  }

  /** The nodes started by {@link #startJoining}, in order. */
  public List<FrsmNode> joiningNodes() {
    return List.copyOf(joining);
  }

  private FrsmNode newNode(int nodeId) throws IOException {
    Path dir = baseDir.resolve("node-" + nodeId);
    InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    FrsmNodeBuilder b =
        FrsmNode.builder()
            .nodeId(nodeId)
            .clusterId(clusterId)
            .dataDirectory(dir.resolve("data"))
            .commitLogDirectories(List.of(dir.resolve("commitlog")))
            .peerAddress(any)
            .clientAddress(any)
            .zookeeper(zookeeper.connectString())
            .zookeeperSessionTimeout(SESSION_TIMEOUT)
            .initialNodes(nodes.length())
            .rack(rack(nodeId))
            .join(nodeId > nodes.length());
    if (ca == null) {
      b.insecure(true);
    } else {
      TlsFiles files =
          ca.issueNode(certificateDirectory(baseDir), clusterId, nodeId, CERTIFICATE_VALIDITY);
      b.tls(files.caBundle(), files.certificateChain(), files.privateKey())
          .zookeeperCredentialFile(zookeeperCredentialFile())
          .zookeeperReaderCredentialFile(zookeeperReaderCredentialFile());
    }
    settings.accept(b);
    return b.build();
  }

  /** Node {@code nodeId}'s rack: one per node, so every range has its replicas on three racks. */
  public static String rack(int nodeId) {
    return "rack" + nodeId;
  }

  public String clusterId() {
    return clusterId;
  }

  /** How many nodes the cluster was started with (killed ones included). */
  public int size() {
    return nodes.length();
  }

  public String zookeeperConnect() {
    return zookeeper.connectString();
  }

  /** Node {@code nodeId} (1-based), or null while it is killed. */
  public FrsmNode node(int nodeId) {
    return nodes.get(nodeId - 1);
  }

  /** The running nodes, by id. */
  public List<FrsmNode> nodes() {
    List<FrsmNode> out = new ArrayList<>();
    for (int i = 0; i < nodes.length(); i++) {
      FrsmNode n = nodes.get(i);
      if (n != null) {
        out.add(n);
      }
    }
    return out;
  }

  /**
   * A remote client of this cluster over TCP, started from the running nodes' client addresses
   * (seeds), like a service that depends on frsm-client alone, with the certificate of {@link
   * #adminClientFiles()} unless the cluster is insecure.
   */
  public FrsmClient thinClient() {
    List<String> seeds = new ArrayList<>();
    for (FrsmNode n : nodes()) {
      String host = n.clientAddress().getAddress().getHostAddress(); // bound to loopback
      seeds.add((host.contains(":") ? "[" + host + "]" : host) + ":" + n.clientAddress().getPort());
    }
    FrsmClientBuilder b = FrsmClient.builder().seeds(String.join(",", seeds)).clusterId(clusterId);
    TlsFiles files = adminClientFiles();
    if (files == null) {
      b.insecure();
    } else {
      b.tls(files.caBundle(), files.certificateChain(), files.privateKey());
    }
    return b.build();
  }

  /**
   * The files of a client certificate with every role ({@link #ADMIN_CLIENT}), issued on first use;
   * null when the cluster is insecure.
   */
  public synchronized TlsFiles adminClientFiles() {
    if (ca == null) {
      return null;
    }
    Path dir = certificateDirectory(baseDir);
    Path chain = dir.resolve("client-" + ADMIN_CLIENT + ".pem");
    try {
      if (java.nio.file.Files.exists(chain)) {
        return new TlsFiles(
            dir.resolve(CertificateAuthority.FILE_CA),
            chain,
            dir.resolve("client-" + ADMIN_CLIENT + "-key.pem"));
      }
      return ca.issue(
          dir,
          "client-" + ADMIN_CLIENT,
          new CertificateIdentity.Client(
              clusterId, ADMIN_CLIENT, EnumSet.of(Role.READ, Role.WRITE, Role.ADMIN)),
          CERTIFICATE_VALIDITY);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The file of the ZooKeeper identity the nodes authenticate with (every znode grants it all),
   * made on first use in the certificate directory; null when the cluster is insecure (its znodes
   * are then open to anyone).
   */
  public Path zookeeperCredentialFile() {
    return credentialFile(NODE_ZOOKEEPER_USER);
  }

  /**
   * The file of the read-only ZooKeeper identity (for {@code FrsmClientBuilder.zookeeperCredential}
   * and {@code frsm cli --zookeeper-credential}), made on first use; null when the cluster is
   * insecure.
   */
  public Path zookeeperReaderCredentialFile() {
    return credentialFile(READER_ZOOKEEPER_USER);
  }

  private synchronized Path credentialFile(String user) {
    if (ca == null) {
      return null;
    }
    Path file = certificateDirectory(baseDir).resolve("zookeeper-" + user + ".credential");
    try {
      if (!java.nio.file.Files.exists(file)) {
        ZooKeeperCredential.create(file, user);
      }
      return file;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Kills node {@code nodeId} as SIGKILL would: no drain, no flush, no deregistration. */
  public void kill(int nodeId) {
    FrsmNode n = nodes.getAndSet(nodeId - 1, null);
    if (n != null) {
      n.kill();
    }
  }

  /** Starts node {@code nodeId} again on its directories (it replays its commit log). */
  public void restart(int nodeId) throws IOException {
    FrsmNode n = newNode(nodeId);
    try {
      n.start();
      n.awaitReady(READY_TIMEOUT);
    } catch (IOException | RuntimeException e) {
      n.close(); // not in the cluster yet: the cluster's close() would not stop it
      throw e;
    }
    nodes.set(nodeId - 1, n);
  }

  @Override
  public void close() {
    for (FrsmNode n : joining) {
      try {
        n.close();
      } catch (RuntimeException e) {
        System.err.println("node " + n.nodeId() + " did not stop cleanly: " + e);
      }
    }
    for (int i = nodes.length() - 1; i >= 0; i--) {
      FrsmNode n = nodes.getAndSet(i, null);
      if (n != null) {
        try {
          n.close();
        } catch (RuntimeException e) {
          System.err.println("node " + (i + 1) + " did not stop cleanly: " + e);
        }
      }
    }
    zookeeper.close();
  }
}
