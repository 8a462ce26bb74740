package io.frsm.server.node;

import io.frsm.client.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.SecurityKeys;
import io.frsm.server.config.TransportKeys;
import io.frsm.server.config.ZooKeeperKeys;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds an {@link FrsmNode} ({@link FrsmNode#builder()}). Every option sets a key of the node's
 * {@link FrsmConfig} (the keys and their defaults: {@link io.frsm.server.config.ConfigKeys}), the
 * same keys a configuration file sets; {@link #build()} checks them as the file's loader does and
 * names the key and the option that is wrong. Each setter replaces its setting, so settings made
 * after {@link #config} override the file's; {@link #lsm} and {@link #transport} adjustments add
 * up. Not thread-safe.
 */
public final class FrsmNodeBuilder {
  private FrsmConfig.Builder config = embeddedDefaults();
  private double forcedColdCasShare;
  private MeterRegistry meterRegistry;
  private Consumer<Throwable> onFatalError;
  private PeerLinkFaults peerLinkFaults;
  private DiskSpaceGuard.Probe diskSpace;

  FrsmNodeBuilder() {}

  /**
   * The file's defaults but two: an embedded node names its cluster (no default cluster id), and
   * listens on the loopback interface, on any free port, unless told otherwise.
   */
  private static FrsmConfig.Builder embeddedDefaults() {
    return FrsmConfig.builder()
        .set(NodeKeys.CLUSTER_ID, null)
        .set(NodeKeys.PEER_ADDRESS, new InetSocketAddress("127.0.0.1", 0))
        .set(NodeKeys.CLIENT_ADDRESS, new InetSocketAddress("127.0.0.1", 0));
  }

  /**
   * Every setting a configuration file holds (docs/OPERATIONS.md "Configuration file"): embedders
   * load the same {@code frsm.yaml} as {@code frsm server} with {@link
   * io.frsm.server.config.ConfigLoader} and start the node it describes. Replaces every key,
   * including the {@link #lsm} and {@link #transport} adjustments made before; later calls override
   * it. {@code metrics.port} is not a node setting: the server command runs the endpoint and passes
   * its registry to {@link #meterRegistry}. Host names in the addresses are resolved when the node
   * is built.
   */
  public FrsmNodeBuilder config(FrsmConfig config) {
    this.config = Objects.requireNonNull(config, "config").toBuilder();
    return this;
  }

  /** Sets any key of the node's configuration, as the option that sets it would. */
  public <T> FrsmNodeBuilder set(ConfigKey<T> key, T value) {
    config.set(key, value);
    return this;
  }

  /** Required. Unique in the cluster and stable across restarts (it is in every ballot). */
  public FrsmNodeBuilder nodeId(int id) {
    config.set(NodeKeys.ID, id);
    return this;
  }

  /** Required: 1-64 characters of [A-Za-z0-9_.-]; equal on every node and client. */
  public FrsmNodeBuilder clusterId(String id) {
    config.set(NodeKeys.CLUSTER_ID, id);
    return this;
  }

  /** Required: SSTables, manifest and the boot counter. */
  public FrsmNodeBuilder dataDirectory(Path dir) {
    config.set(NodeKeys.DATA_DIRECTORY, dir);
    return this;
  }

  /** One directory per commit-log stripe (default {@code <data>/commitlog}). */
  public FrsmNodeBuilder commitLogDirectories(List<Path> dirs) {
    config.set(NodeKeys.COMMIT_LOG_DIRECTORIES, List.copyOf(dirs));
    return this;
  }

  /** Where peers connect (default 127.0.0.1, port 0 = any free port). */
  public FrsmNodeBuilder peerAddress(InetSocketAddress address) {
    config.set(NodeKeys.PEER_ADDRESS, address);
    return this;
  }

  /** Where thin clients connect (default 127.0.0.1, port 0 = any free port). */
  public FrsmNodeBuilder clientAddress(InetSocketAddress address) {
    config.set(NodeKeys.CLIENT_ADDRESS, address);
    return this;
  }

  /** The host others reach this node at (default: the peer address's host). */
  public FrsmNodeBuilder advertisedHost(String host) {
    config.set(NodeKeys.ADVERTISED_HOST, host);
    return this;
  }

  /**
   * Mutual TLS on the peer and client ports with these PEM files (docs/OPERATIONS.md "Security"):
   * the CAs trusted, this node's certificate chain (its first certificate names {@code
   * frsm://node/<id>?cluster=<cluster id>}), and its unencrypted PKCS#8 key. Either this or {@link
   * #insecure}{@code (true)} is required: an embedded node is never plaintext by omission.
   */
  public FrsmNodeBuilder tls(Path caBundle, Path certificateChain, Path privateKey) {
    config
        .set(SecurityKeys.CA_BUNDLE, Objects.requireNonNull(caBundle, "caBundle"))
        .set(SecurityKeys.CERTIFICATE_CHAIN, Objects.requireNonNull(certificateChain, "chain"))
        .set(SecurityKeys.PRIVATE_KEY, Objects.requireNonNull(privateKey, "privateKey"));
    return this;
  }

  /**
   * {@code true}: plaintext, unauthenticated peer and client ports — anyone who reaches them can
   * read and write every key, and send peer messages as any node. For tests and loopback
   * experiments; the node logs a warning when it starts. Default false (then {@link #tls} is
   * required).
   */
  public FrsmNodeBuilder insecure(boolean insecure) {
    config.set(SecurityKeys.INSECURE, insecure);
    return this;
  }

  /** How often a new connection may look for changed TLS files (default 10 s; 0: every time). */
  public FrsmNodeBuilder tlsReloadCheckInterval(Duration interval) {
    config.set(SecurityKeys.RELOAD_CHECK_INTERVAL, interval);
    return this;
  }

  /** A connection that has not completed its TLS handshake by then is closed (default 10 s). */
  public FrsmNodeBuilder tlsHandshakeTimeout(Duration timeout) {
    config.set(SecurityKeys.HANDSHAKE_TIMEOUT, timeout);
    return this;
  }

  /** Required: the ZooKeeper connect string. */
  public FrsmNodeBuilder zookeeper(String connectString) {
    config.set(ZooKeeperKeys.CONNECT, connectString);
    return this;
  }

  /**
   * The file of one line {@code user:password} this node authenticates to ZooKeeper with ({@code
   * digest} scheme); every znode it creates grants access to that identity only. Required unless
   * {@link #insecure}{@code (true)} (docs/OPERATIONS.md "ZooKeeper authentication").
   */
  public FrsmNodeBuilder zookeeperCredentialFile(Path file) {
    config.set(ZooKeeperKeys.CREDENTIAL_FILE, Objects.requireNonNull(file, "file"));
    return this;
  }

  /**
   * The file of one line {@code user:password} of a second ZooKeeper identity that this node's
   * znodes grant read access to: what clients and the CLI use to find the cluster through ZooKeeper
   * without holding the node's own credential. Only with {@link #zookeeperCredentialFile}.
   */
  public FrsmNodeBuilder zookeeperReaderCredentialFile(Path file) {
    config.set(ZooKeeperKeys.READER_CREDENTIAL_FILE, Objects.requireNonNull(file, "file"));
    return this;
  }

  /**
   * TLS to the ensemble's secure client ports ({@code zookeeper.tls.*}; docs/OPERATIONS.md
   * "ZooKeeper TLS"); {@link #zookeeper} then names those ports. Default: plaintext.
   */
  public FrsmNodeBuilder zookeeperTls(io.frsm.server.zk.ZooKeeperTls tls) {
    Objects.requireNonNull(tls, "tls");
    config.set(ZooKeeperKeys.TLS_TRUST_STORE, tls.trustStore());
    config.set(ZooKeeperKeys.TLS_TRUST_STORE_PASSWORD_FILE, tls.trustStorePasswordFile());
    config.set(ZooKeeperKeys.TLS_KEY_STORE, tls.keyStore());
    config.set(ZooKeeperKeys.TLS_KEY_STORE_PASSWORD_FILE, tls.keyStorePasswordFile());
    config.set(ZooKeeperKeys.TLS_HOSTNAME_VERIFICATION, tls.hostnameVerification());
    return this;
  }

  /** Default 10 s. Membership ends this long after the node stops answering ZooKeeper. */
  public FrsmNodeBuilder zookeeperSessionTimeout(Duration timeout) {
    config.set(ZooKeeperKeys.SESSION_TIMEOUT, timeout);
    return this;
  }

  /** The failure domain (default "default"). */
  public FrsmNodeBuilder rack(String rack) {
    config.set(NodeKeys.RACK, rack);
    return this;
  }

  /**
   * Adjusts the storage engine's settings (docs/OPERATIONS.md); data and log dirs are set. Runs
   * after the adjustments given before (and after {@link #config}'s).
   */
  public FrsmNodeBuilder lsm(Consumer<LsmConfig.Builder> tweaks) {
    Objects.requireNonNull(tweaks, "lsm");
    config.adjustLsm(tweaks);
    return this;
  }

  /**
   * Adjusts the transport's settings, peer and client protocol alike: frame limit, write-buffer
   * water marks, per-connection queue bound, connect timeout, reconnect back-off (defaults: {@link
   * TransportConfig.Builder}); the builder {@code tweaks} sees holds the current values. The
   * cluster id is this node's. Applies on top of the settings made before (and {@link #config}'s).
   */
  public FrsmNodeBuilder transport(Consumer<TransportConfig.Builder> tweaks) {
    Objects.requireNonNull(tweaks, "transport");
    config.adjustTransport(tweaks);
    return this;
  }

  /**
   * {@code T} (default 5 s): no round for an operation starts later than {@code T} after its
   * invocation; it then ends with an unknown outcome or not executed.
   */
  public FrsmNodeBuilder boundedDelay(Duration t) {
    config.set(ConsensusKeys.BOUNDED_DELAY, t);
    return this;
  }

  /** ε, the wall-clock skew bound between nodes (default 250 ms). */
  public FrsmNodeBuilder clockSkewBound(Duration epsilon) {
    config.set(ConsensusKeys.CLOCK_SKEW_BOUND, epsilon);
    return this;
  }

  /**
   * Round timings: hedge (20 ms), round timeout (200 ms), maximum back-off (50 ms). The hedge must
   * be below the round timeout.
   */
  public FrsmNodeBuilder roundTimings(Duration hedge, Duration roundTimeout, Duration backoffMax) {
    config
        .set(ConsensusKeys.HEDGE, hedge)
        .set(ConsensusKeys.ROUND_TIMEOUT, roundTimeout)
        .set(ConsensusKeys.BACKOFF_MAX, backoffMax);
    return this;
  }

  /** How often the core checks its timers (default 2 ms, at most the hedge; 1-5 ms is sensible). */
  public FrsmNodeBuilder tickInterval(Duration interval) {
    config.set(ConsensusKeys.TICK_INTERVAL, interval);
    return this;
  }

  /** How long close() waits for running operations (default 10 s). */
  public FrsmNodeBuilder drainTimeout(Duration timeout) {
    config.set(NodeKeys.DRAIN_TIMEOUT, timeout);
    return this;
  }

  /** Virtual nodes per node on the ring (default 16); fixed when the cluster forms. */
  public FrsmNodeBuilder vnodes(int vnodes) {
    config.set(RingKeys.VNODES, vnodes);
    return this;
  }

  /**
   * Replicas per range (default 3, at most {@value RingKeys#MAX_REPLICATION_FACTOR}); an operation
   * needs a majority of them. Stored in the cluster's shape by the node that forms the cluster and
   * fixed from then on: a node configured with another value is refused at start.
   */
  public FrsmNodeBuilder replicationFactor(int replicas) {
    config.set(RingKeys.REPLICATION_FACTOR, replicas);
    return this;
  }

  /**
   * How many registered nodes form the cluster (default 3, at least the replication factor): the
   * first ones to register. Fixed when the cluster forms; later nodes with other ids are refused.
   */
  public FrsmNodeBuilder initialNodes(int nodes) {
    config.set(NodeKeys.INITIAL_NODES, nodes);
    return this;
  }

  /**
   * Whether a node whose id is not one of the formed cluster's may start (default false): it
   * registers and serves nothing until a membership change adds it (docs/OPERATIONS.md "Membership
   * changes"). A retired id is refused either way.
   */
  public FrsmNodeBuilder join(boolean join) {
    config.set(NodeKeys.JOIN, join);
    return this;
  }

  /**
   * {@code L}, the range lease (default 1.5 s): renewed every L/4; a new leader waits {@code
   * L·(1+ρ)} before its first write, so this is also most of the fail-over time after the ZooKeeper
   * session of a dead leader expired.
   */
  public FrsmNodeBuilder lease(Duration lease) {
    config.set(ConsensusKeys.LEASE, lease);
    return this;
  }

  /**
   * How long a range leader goes without an answer from a quorum of the range's replicas before it
   * hands the range over, and a node stops competing for it until it reaches a quorum again
   * (default 1 s; above the round timeout; {@link Duration#ZERO}: never).
   */
  public FrsmNodeBuilder stepDownAfter(Duration stepDownAfter) {
    config.set(ConsensusKeys.STEP_DOWN_AFTER, stepDownAfter);
    return this;
  }

  /** ρ, the bound on monotonic clock drift in parts per million (default 1000 = 10⁻³). */
  public FrsmNodeBuilder clockDriftPpm(int ppm) {
    config.set(ConsensusKeys.CLOCK_DRIFT_PPM, ppm);
    return this;
  }

  /**
   * Whether the range leader answers gets (and CAS that must fail) from its own store under its
   * lease (default true). False makes every read a quorum read (1 RTT) while leases still order
   * writes: for operators who would rather not rely on the clock-drift bound for reads, and for the
   * read-mode experiment.
   */
  public FrsmNodeBuilder leaderOnlyReads(boolean enabled) {
    config.set(ConsensusKeys.LEADER_ONLY_READS, enabled);
    return this;
  }

  /**
   * Runs the consensus cores on the node's transport event loops (shard s on loop s mod {@code
   * transportThreads}), or on threads of their own: no thread hand-off between the network and the
   * core, at the price of the loop's I/O waiting while the core steps. Pays only with one transport
   * thread and one core shard, where every channel of the node shares the core's loop; with
   * channels on other loops it measured worse. Unset, the node decides ({@link CorePlacement#AUTO}:
   * the loop exactly in that case).
   */
  public FrsmNodeBuilder coreOnTransportLoop(boolean enabled) {
    return corePlacement(CorePlacement.of(enabled));
  }

  /** See {@link #coreOnTransportLoop(boolean)}; default {@link CorePlacement#AUTO}. */
  public FrsmNodeBuilder corePlacement(CorePlacement placement) {
    config.set(
        ConsensusKeys.CORE_ON_TRANSPORT_LOOP, Objects.requireNonNull(placement, "corePlacement"));
    return this;
  }

  /**
   * Consensus core shards (default 0: a quarter of the CPUs, at least one): each a thread owning
   * every n-th range of the ring, so a node's consensus work spreads over that many CPUs
   * (docs/PROTOCOL.md "Core shards"). At most {@link
   * io.frsm.consensus.core.ShardRouting#MAX_SHARDS}.
   */
  public FrsmNodeBuilder coreThreads(int threads) {
    config.set(ConsensusKeys.CORE_THREADS, threads);
    return this;
  }

  /**
   * Experiments only (default 0): the share of CAS operations that run a prepare although their key
   * is warm, to vary the multi-phase fraction (the paper's Figure 16). Costs a round per forced
   * CAS, never safety. Not a configuration key.
   */
  public FrsmNodeBuilder forcedColdCasShare(double share) {
    forcedColdCasShare = share;
    return this;
  }

  /** The clock cache's bound (default 64 MiB). */
  public FrsmNodeBuilder clockCacheBytes(long bytes) {
    config.set(ConsensusKeys.CLOCK_CACHE_BYTES, bytes);
    return this;
  }

  /** Netty event-loop threads (default 0: one on a machine with 2 CPUs or fewer, else two). */
  public FrsmNodeBuilder transportThreads(int threads) {
    config.set(TransportKeys.THREADS, threads);
    return this;
  }

  /** Where the engine's meters go (default: a private SimpleMeterRegistry). */
  public FrsmNodeBuilder meterRegistry(MeterRegistry registry) {
    meterRegistry = registry;
    return this;
  }

  /**
   * Who hears of a fatal error (default: nobody). A node that meets a storage failure or a failure
   * of its consensus core it cannot contain stops serving for good — {@link FrsmNode#serving()}
   * turns false, it leaves its ranges and the cluster — and then calls {@code listener} once, on a
   * thread of its own, with the error (docs/OPERATIONS.md "Failure policy"). The JVM stays up: an
   * embedding application decides what happens next (close the node and start a new one on the same
   * directories, or exit); {@code frsm server} exits with status 70. Not a configuration key.
   */
  public FrsmNodeBuilder onFatalError(Consumer<Throwable> listener) {
    onFatalError = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * A node with these settings, not started.
   *
   * @throws io.frsm.server.config.ConfigException (an IllegalArgumentException) naming the key and
   *     option that is missing or out of range, or the keys that contradict each other
   */
  /**
   * Tests only: the node's peer messages pass through {@code faults}, which the test switches at
   * run time (drops, one-way cuts, delays). Not a configuration key: production nodes have none.
   */
  FrsmNodeBuilder peerLinkFaults(PeerLinkFaults faults) {
    peerLinkFaults = Objects.requireNonNull(faults, "faults");
    return this;
  }

  /**
   * Tests only: the disk space guard reads free space through {@code probe} (a test makes the disk
   * "fill" and empty again). Not a configuration key: production nodes read their file stores.
   */
  FrsmNodeBuilder diskSpace(DiskSpaceGuard.Probe probe) {
    diskSpace = Objects.requireNonNull(probe, "probe");
    return this;
  }

  public FrsmNode build() {
    return new FrsmNode(
        new NodeSettings(
            config.build(),
            forcedColdCasShare,
            meterRegistry,
            onFatalError,
            peerLinkFaults,
            diskSpace));
  }
}
