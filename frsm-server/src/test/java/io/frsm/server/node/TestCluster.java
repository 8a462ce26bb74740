package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.cell.Token;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Embedded ZooKeeper plus {@code n} (default three) {@link FrsmNode}s on loopback with ephemeral
 * ports and their own directories under one temp directory, all in the cluster's initial shape;
 * nodes can be crashed and restarted on the same directories. Starting returns once every range is
 * led by its natural leader. A crash closes the node's ZooKeeper session at once (unlike a real
 * kill -9, whose session lives until it times out). Closes everything it started.
 */
final class TestCluster implements AutoCloseable {
  static final String CLUSTER_ID = "it-cluster";

  /**
   * T: longer than the lease wait L·(1+ρ) of a new range leader (L = 1.5 s by default), so an
   * operation that arrives while its range changes hands waits for the new leader instead of
   * failing.
   */
  static final Duration BOUNDED_DELAY = Duration.ofSeconds(4);

  /** ε: the nodes share one clock here. */
  static final Duration CLOCK_SKEW_BOUND = Duration.ofMillis(10);

  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(6);

  /**
   * How long a node or the cluster may take to be ready; {@code -Dfrsm.it.readySeconds} raises it
   * for a benchmark IT run on a machine loaded by others' work (default 60).
   */
  static final Duration READY_TIMEOUT =
      Duration.ofSeconds(Long.getLong("frsm.it.readySeconds", 60));

  private final Path dir;
  private final Duration boundedDelay;
  private final Duration clockSkewBound;
  private volatile EmbeddedZooKeeper zookeeper;
  private final FrsmNode[] nodes;

  /** Per node (index id − 1), the faults on its peer links; null without {@link #withFaults}. */
  private final PeerLinkFaults[] linkFaults;

  private final Duration stepDownAfter; // null: the default

  /** A test's changes to every node's settings, applied last; null: none. */
  private final java.util.function.Consumer<FrsmNodeBuilder> tweaks;

  /** The thin clients' keep-alive interval; null: the client's default. */
  private final Duration clientKeepalive;

  /** Per node, the proxy it reaches ZooKeeper through; null without {@link #withFaults}. */
  private final ZooKeeperProxy[] zooKeeperProxies;

  /** Replicas per range, or 0 to leave the builder's default (3). */
  private final int replicationFactor;

  /** Core shards per node, or 0 to leave the builder's default. */
  private final int coreThreads;

  /** {@code coreOnTransportLoop} for every node, or null to leave the builder's default. */
  private final Boolean coreOnTransportLoop;

  private final List<FrsmClient> clients = new ArrayList<>();

  /** Every test cluster runs mutual TLS, with a CA of its own: the production path. */
  private final TestTls tls;

  /** The nodes' ZooKeeper identity, and the read-only one their znodes also grant. */
  private final Path zooKeeperCredential;

  private final Path zooKeeperReaderCredential;

  TestCluster(Path dir) throws Exception {
    this(dir, 3);
  }

  TestCluster(Path dir, int n) throws Exception {
    this(dir, n, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null);
  }

  /** Three nodes, each running {@code coreThreads} core shards on threads of their own. */
  static TestCluster withCoreThreads(Path dir, int coreThreads) throws Exception {
    return new TestCluster(dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, coreThreads, false);
  }

  /**
   * Three nodes, each running {@code coreThreads} core shards on its single transport event loop
   * (no core threads of their own).
   */
  static TestCluster withCoresOnTheTransportLoop(Path dir, int coreThreads) throws Exception {
    return new TestCluster(dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, coreThreads, true);
  }

  /**
   * Three nodes whose range leaders never step down, so the quorum watch (docs/PROTOCOL.md
   * "Step-down and the quorum watch") sends no probes: for a test that checks that an idle
   * cluster's peer traffic does not move at all.
   */
  static TestCluster withoutStepDown(Path dir) throws Exception {
    return new TestCluster(
        dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null, false, Duration.ZERO, null);
  }

  /**
   * Three nodes whose peer links pass through {@link PeerLinkFaults} ({@link #linkFaults}) and each
   * of which reaches ZooKeeper through a proxy of its own ({@link #zooKeeperProxy}), so a test can
   * cut them.
   */
  static TestCluster withFaults(Path dir) throws Exception {
    return new TestCluster(dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null, true, null, null);
  }

  /**
   * Three nodes whose disk space guards read free space through {@code diskSpace} (told each
   * storage directory; every node's lies under {@code dir/node-<id>}), polled every 20 ms.
   */
  static TestCluster withDiskSpace(Path dir, DiskSpaceGuard.Probe diskSpace) throws Exception {
    return new TestCluster(
        dir,
        3,
        0,
        BOUNDED_DELAY,
        CLOCK_SKEW_BOUND,
        0,
        null,
        false,
        null,
        builder ->
            builder
                .diskSpace(diskSpace)
                .set(
                    io.frsm.server.config.NodeKeys.DISK_SPACE_CHECK_INTERVAL,
                    Duration.ofMillis(20)));
  }

  /**
   * Three nodes that close inbound connections silent for {@code idleTimeout}
   * (transport.idleTimeout) and whose range leaders never step down (no quorum-watch probes: peer
   * connections stay quiet); the thin clients it builds send keep-alives every quarter of it.
   */
  static TestCluster withIdleTimeout(Path dir, Duration idleTimeout) throws Exception {
    return new TestCluster(
        dir,
        3,
        0,
        BOUNDED_DELAY,
        CLOCK_SKEW_BOUND,
        0,
        null,
        false,
        Duration.ZERO,
        builder -> builder.set(io.frsm.server.config.TransportKeys.IDLE_TIMEOUT, idleTimeout),
        idleTimeout.dividedBy(4));
  }

  /** Three nodes, each node's settings changed by {@code tweaks} (restarts too). */
  static TestCluster withTweaks(Path dir, java.util.function.Consumer<FrsmNodeBuilder> tweaks)
      throws Exception {
    return new TestCluster(
        dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null, false, null, tweaks);
  }

  /**
   * As {@link #withFaults(Path)}, each node's settings changed by {@code tweaks} (restarts too).
   */
  static TestCluster withFaults(Path dir, java.util.function.Consumer<FrsmNodeBuilder> tweaks)
      throws Exception {
    return new TestCluster(dir, 3, 0, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null, true, null, tweaks);
  }

  /** {@code n} nodes with {@code replicationFactor} replicas per range (0: the default). */
  TestCluster(Path dir, int n, int replicationFactor) throws Exception {
    this(dir, n, replicationFactor, BOUNDED_DELAY, CLOCK_SKEW_BOUND, 0, null);
  }

  /** With the cluster's T and ε (every node runs them; the shape publishes them to clients). */
  TestCluster(Path dir, int n, Duration boundedDelay, Duration clockSkewBound) throws Exception {
    this(dir, n, 0, boundedDelay, clockSkewBound, 0, null);
  }

  private TestCluster(
      Path dir,
      int n,
      int replicationFactor,
      Duration boundedDelay,
      Duration clockSkewBound,
      int coreThreads,
      Boolean coreOnTransportLoop)
      throws Exception {
    this(
        dir,
        n,
        replicationFactor,
        boundedDelay,
        clockSkewBound,
        coreThreads,
        coreOnTransportLoop,
        false,
        null,
        null);
  }

  private TestCluster(
      Path dir,
      int n,
      int replicationFactor,
      Duration boundedDelay,
      Duration clockSkewBound,
      int coreThreads,
      Boolean coreOnTransportLoop,
      boolean withFaults,
      Duration stepDownAfter,
      java.util.function.Consumer<FrsmNodeBuilder> tweaks)
      throws Exception {
    this(
        dir,
        n,
        replicationFactor,
        boundedDelay,
        clockSkewBound,
        coreThreads,
        coreOnTransportLoop,
        withFaults,
        stepDownAfter,
        tweaks,
        null);
  }

  private TestCluster(
      Path dir,
      int n,
      int replicationFactor,
      Duration boundedDelay,
      Duration clockSkewBound,
      int coreThreads,
      Boolean coreOnTransportLoop,
      boolean withFaults,
      Duration stepDownAfter,
      java.util.function.Consumer<FrsmNodeBuilder> tweaks,
      Duration clientKeepalive)
      throws Exception {
    this.clientKeepalive = clientKeepalive;
    this.stepDownAfter = stepDownAfter;
    this.tweaks = tweaks;
    this.linkFaults = withFaults ? new PeerLinkFaults[n] : null;
    this.zooKeeperProxies = withFaults ? new ZooKeeperProxy[n] : null;
    this.coreThreads = coreThreads;
    this.coreOnTransportLoop = coreOnTransportLoop;
    this.dir = dir;
    this.boundedDelay = boundedDelay;
    this.clockSkewBound = clockSkewBound;
    this.nodes = new FrsmNode[n];
    this.replicationFactor = replicationFactor;
    this.tls = TestTls.create(dir.resolve("certs"), CLUSTER_ID);
    this.zooKeeperCredential = credentialFile(dir, "frsm-node");
    this.zooKeeperReaderCredential = credentialFile(dir, "frsm-reader");
    this.zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
    try {
      if (withFaults) {
        for (int i = 0; i < n; i++) {
          linkFaults[i] = new PeerLinkFaults();
          zooKeeperProxies[i] = new ZooKeeperProxy(zookeeper.port());
        }
      }
      for (int i = 0; i < n; i++) {
        nodes[i] = newNode(i + 1);
        nodes[i].start();
      }
      for (FrsmNode node : nodes) {
        node.awaitReady(READY_TIMEOUT);
      }
      awaitNaturalLeaders();
      awaitEveryRangeWritable();
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  private FrsmNode newNode(int nodeId) {
    return nodeBuilder(nodeId, dir.resolve("node-" + nodeId)).build();
  }

  /**
   * The settings of this cluster's node {@code nodeId}, on directories under {@code data}; a test
   * may change some before it builds the node.
   */
  FrsmNodeBuilder nodeBuilder(int nodeId, Path data) {
    FrsmNodeBuilder builder = FrsmNode.builder();
    if (replicationFactor > 0) {
      builder.replicationFactor(replicationFactor);
    }
    if (coreThreads > 0) {
      builder.coreThreads(coreThreads);
    }
    if (coreOnTransportLoop != null) {
      builder.coreOnTransportLoop(coreOnTransportLoop);
    }
    if (linkFaults != null) {
      builder.peerLinkFaults(linkFaults[nodeId - 1]);
    }
    if (stepDownAfter != null) {
      builder.stepDownAfter(stepDownAfter);
    }
    TlsFiles files = tls.node(nodeId);
    builder
        .tls(files.caBundle(), files.certificateChain(), files.privateKey())
        .zookeeperCredentialFile(zooKeeperCredential)
        .zookeeperReaderCredentialFile(zooKeeperReaderCredential)
        .nodeId(nodeId)
        .clusterId(CLUSTER_ID)
        .dataDirectory(data.resolve("data"))
        .commitLogDirectories(List.of(data.resolve("log-a"), data.resolve("log-b")))
        .zookeeper(
            zooKeeperProxies == null
                ? zookeeper.connectString()
                : zooKeeperProxies[nodeId - 1].connectString())
        .zookeeperSessionTimeout(Duration.ofSeconds(3))
        .initialNodes(nodes.length)
        .rack("rack-" + nodeId)
        .boundedDelay(boundedDelay)
        .clockSkewBound(clockSkewBound)
        .drainTimeout(Duration.ofSeconds(5))
        .transportThreads(1)
        .lsm(b -> b.blockCacheSizeBytes(1 << 20).memtableFlushSizeBytes(256 * 1024));
    if (tweaks != null) {
      tweaks.accept(builder);
    }
    return builder;
  }

  /** A node with an id outside the cluster's shape, on its own directories; not started. */
  FrsmNode outsider(int nodeId) {
    if (nodeId >= 1 && nodeId <= nodes.length) {
      throw new IllegalArgumentException("node " + nodeId + " is in the cluster");
    }
    return newNode(nodeId);
  }

  /** The node with {@code nodeId} (1-n). */
  FrsmNode node(int nodeId) {
    return nodes[nodeId - 1];
  }

  int size() {
    return nodes.length;
  }

  Ring ring() {
    return nodes[0].ring();
  }

  /** The ring range of {@code key}. */
  int rangeOf(byte[] key) {
    return ring().rangeIndexOf(Token.of(key));
  }

  /** The node ids that hold range {@code range}'s term now (at most one once settled). */
  List<Integer> holdersOf(int range) {
    List<Integer> out = new ArrayList<>();
    for (FrsmNode n : nodes) {
      if (n != null && n.leadsRange(range)) {
        out.add(n.nodeId());
      }
    }
    return out;
  }

  /**
   * Waits until every range is held by its natural leader alone: with all nodes up, where
   * leadership settles once the nodes that became ready first handed their stand-in ranges back.
   */
  void awaitNaturalLeaders() {
    NaturalLeaders.await(
        java.util.Arrays.stream(nodes).filter(java.util.Objects::nonNull).toList(), READY_TIMEOUT);
  }

  /**
   * Waits until every range takes a write: its leader waited out L·(1+ρ), persisted its term and
   * holds its lease (a held term alone does not say so). One probe key per range is created through
   * a thin client (so the probes land on the leaders' meters as client-protocol creates); a probe
   * that did not take effect in time is tried again.
   */
  private void awaitEveryRangeWritable() {
    Ring ring = ring();
    java.util.Map<Integer, byte[]> probes = new java.util.TreeMap<>();
    for (int i = 0; probes.size() < ring.rangeCount(); i++) {
      byte[] key = ("test-cluster-probe/" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      probes.putIfAbsent(rangeOf(key), key);
    }
    FrsmClient client = thinClient();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (!probes.isEmpty()) {
      java.util.Map<Integer, CompletableFuture<?>> writes = new java.util.TreeMap<>();
      probes.forEach(
          (range, key) ->
              writes.put(range, client.createAsync(key, new byte[] {1}).exceptionally(e -> null)));
      for (var w : writes.entrySet()) {
        Object done = w.getValue().join();
        if (done != null || existsAlready(client, probes.get(w.getKey()))) {
          probes.remove(w.getKey());
        }
      }
      if (!probes.isEmpty() && System.nanoTime() - deadline > 0) {
        throw new AssertionError("ranges not writable after " + READY_TIMEOUT + ": " + probes);
      }
    }
  }

  /** A probe whose create failed may still have taken effect (unknown outcome) or exist. */
  private static boolean existsAlready(FrsmClient client, byte[] key) {
    try {
      return client.get(key).isPresent();
    } catch (io.frsm.api.FrsmException e) {
      return false;
    }
  }

  /** Waits until range {@code range} is held by node {@code nodeId} alone. */
  void awaitLeader(int range, int nodeId, Duration timeout) {
    Await.until(
        () -> holdersOf(range).equals(List.of(nodeId)),
        timeout,
        "node " + nodeId + " to lead range " + range + " (holders " + holdersOf(range) + ")");
  }

  /**
   * Waits until node {@code nodeId} has received messages from every other node since it started. A
   * node restarted on a new port is reached by its peers only once they redialled its new address
   * (with back-off); until then it gets no replies, and its rounds wait for them.
   */
  void awaitHeardFromEveryPeer(int nodeId) {
    int[] peers =
        java.util.stream.IntStream.rangeClosed(1, nodes.length).filter(p -> p != nodeId).toArray();
    awaitHeardFrom(nodeId, peers);
  }

  /** Like {@link #awaitHeardFromEveryPeer}, for the running {@code peers} only. */
  void awaitHeardFrom(int nodeId, int... peers) {
    FrsmNode n = node(nodeId);
    Await.until(
        () -> {
          for (int peer : peers) {
            if (n.meterRegistry()
                    .get("frsm.peer.messages")
                    .tag("peer", Integer.toString(peer))
                    .tag("direction", "received")
                    .functionCounter()
                    .count()
                == 0) {
              return false;
            }
          }
          return true;
        },
        READY_TIMEOUT,
        "node " + nodeId + " to hear from nodes " + java.util.Arrays.toString(peers));
  }

  /**
   * The proxy node {@code nodeId} reaches ZooKeeper through (a cluster made {@link #withFaults}).
   */
  ZooKeeperProxy zooKeeperProxy(int nodeId) {
    if (zooKeeperProxies == null) {
      throw new IllegalStateException("this cluster was not made withFaults");
    }
    return zooKeeperProxies[nodeId - 1];
  }

  /** The faults on node {@code nodeId}'s peer links (a cluster made {@link #withFaults}). */
  PeerLinkFaults linkFaults(int nodeId) {
    if (linkFaults == null) {
      throw new IllegalStateException("this cluster was not made withFaults");
    }
    return linkFaults[nodeId - 1];
  }

  /**
   * Cuts node {@code nodeId} off from every other node, both ways, on the peer protocol only: its
   * ZooKeeper session and its client port keep working.
   */
  void isolateFromPeers(int nodeId) {
    int[] others =
        java.util.stream.IntStream.rangeClosed(1, nodes.length).filter(p -> p != nodeId).toArray();
    linkFaults(nodeId).isolateFrom(others);
  }

  /** Ends every peer link fault of every node. */
  void healLinks() {
    for (int id = 1; id <= nodes.length; id++) {
      linkFaults(id).heal();
    }
  }

  /**
   * Stops the embedded ZooKeeper for {@code outage} (the fault's length, not a wait for anything),
   * then starts it again on the same port and data directory: sessions survive if they do not
   * expire meanwhile.
   */
  void restartZooKeeper(Duration outage) throws Exception {
    int port = zookeeper.port();
    zookeeper.close();
    java.util.concurrent.locks.LockSupport.parkNanos(outage.toNanos());
    zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"), port);
  }

  /** The cluster's CA, to issue more certificates (hostile peers, clients with fewer roles). */
  TestTls tls() {
    return tls;
  }

  /** Node {@code nodeId}'s client protocol address as a seed, {@code 127.0.0.1:port}. */
  String seed(int nodeId) {
    return "127.0.0.1:" + node(nodeId).clientAddress().getPort();
  }

  /** Every running node's client address, as {@code FrsmClientBuilder.seeds} takes them. */
  String seeds() {
    List<String> out = new ArrayList<>();
    for (FrsmNode n : nodes) {
      if (n != null && n.serving()) {
        out.add("127.0.0.1:" + n.clientAddress().getPort());
      }
    }
    return String.join(",", out);
  }

  String zookeeperConnectString() {
    return zookeeper.connectString();
  }

  /** The file of the nodes' ZooKeeper identity (all permissions on their znodes). */
  Path zooKeeperCredentialFile() {
    return zooKeeperCredential;
  }

  /** The file of the ZooKeeper identity the nodes' znodes grant read access to. */
  Path zooKeeperReaderCredentialFile() {
    return zooKeeperReaderCredential;
  }

  /**
   * A new, unstarted Curator client of this cluster's ZooKeeper with the nodes' identity (what it
   * creates gets their ACL); the caller starts and closes it.
   */
  CuratorFramework zooKeeperClient() {
    return zooKeeperClient(zookeeper.connectString());
  }

  /** {@link #zooKeeperClient()} for another connect string of the same ensemble. */
  CuratorFramework zooKeeperClient(String connectString) {
    ZooKeeperCredential node = ZooKeeperCredential.read(zooKeeperCredential);
    return ZooKeeperAccess.builder(
            connectString, node, ZooKeeperCredential.read(zooKeeperReaderCredential))
        .retryPolicy(new ExponentialBackoffRetry(100, 5))
        .build();
  }

  private static Path credentialFile(Path dir, String user) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("zookeeper-" + user + ".credential");
    if (!Files.exists(file)) {
      ZooKeeperCredential.create(file, user);
    }
    return file;
  }

  FrsmClient thinClient() {
    return thinClient(CLIENT_TIMEOUT);
  }

  /**
   * A client over TCP ({@code io.frsm.client.SeedClient}) that starts from the running nodes'
   * addresses, as a service would; its calls give up after {@code operationTimeout}; closed with
   * the cluster.
   */
  FrsmClient thinClient(Duration operationTimeout) {
    return thinClient(operationTimeout, tls.admin());
  }

  /** A thin client with the certificate {@code files}; closed with the cluster. */
  FrsmClient thinClient(Duration operationTimeout, TlsFiles files) {
    io.frsm.api.FrsmClientBuilder builder =
        FrsmClient.builder()
            .seeds(seeds())
            .clusterId(CLUSTER_ID)
            .operationTimeout(operationTimeout)
            .tls(files.caBundle(), files.certificateChain(), files.privateKey());
    if (clientKeepalive != null) {
      builder.keepaliveInterval(clientKeepalive);
    }
    FrsmClient c = builder.build();
    clients.add(c);
    return c;
  }

  /** Stops node {@code nodeId} as if its process died: no drain, no flush, no deregistration. */
  void crash(int nodeId) {
    nodes[nodeId - 1].kill();
  }

  /** Starts node {@code nodeId} again on its directories and waits until it serves. */
  FrsmNode restart(int nodeId) throws Exception {
    FrsmNode n = newNode(nodeId);
    nodes[nodeId - 1] = n;
    n.start();
    n.awaitReady(READY_TIMEOUT);
    return n;
  }

  @Override
  public void close() {
    for (FrsmClient c : clients) {
      c.close();
    }
    // In parallel: each drains for up to the drain timeout.
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (FrsmNode n : nodes) {
      if (n != null) {
        closing.add(CompletableFuture.runAsync(n::close));
      }
    }
    closing.forEach(CompletableFuture::join);
    if (zooKeeperProxies != null) {
      for (ZooKeeperProxy p : zooKeeperProxies) {
        if (p != null) {
          p.close();
        }
      }
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
