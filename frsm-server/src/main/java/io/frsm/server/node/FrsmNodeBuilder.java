package io.frsm.server.node;

import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.FrsmConfig;
import io.frsm.transport.TransportConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds an {@link FrsmNode} ({@link FrsmNode#builder()}); {@link #build()} checks every setting
 * and names the one that is wrong. Each setter replaces its setting, so settings made after {@link
 * #config} override the file's; {@link #lsm} and {@link #transport} adjustments add up.
 */
public final class FrsmNodeBuilder {
  private final NodeSettings draft = new NodeSettings();

  FrsmNodeBuilder() {}

  /**
   * Every setting a configuration file holds (docs/OPERATIONS.md "Configuration file"): embedders
   * load the same {@code frsm.yaml} as {@code frsm server} with {@link
   * io.frsm.server.config.ConfigLoader} and start the node it describes. Replaces each setting it
   * covers, including the {@link #lsm} and {@link #transport} adjustments made before; later calls
   * override it. {@code metrics.port} is not a node setting: the server command runs the endpoint
   * and passes its registry to {@link #meterRegistry}. Host names in the addresses are resolved
   * here.
   */
  public FrsmNodeBuilder config(FrsmConfig config) {
    Objects.requireNonNull(config, "config");
    nodeId(config.nodeId());
    clusterId(config.clusterId());
    rack(config.rack());
    dataDirectory(config.dataDirectory());
    commitLogDirectories(config.commitLogDirectories());
    peerAddress(resolved(config.peerAddress()));
    clientAddress(resolved(config.clientAddress()));
    draft.advertisedHost = config.advertisedHost();
    drainTimeout(config.drainTimeout());
    zookeeper(config.zookeeperConnect());
    zookeeperSessionTimeout(config.zookeeperSessionTimeout());
    initialNodes(config.initialNodes());
    vnodes(config.vnodes());
    replicationFactor(config.replicationFactor());
    boundedDelay(config.boundedDelay());
    clockSkewBound(config.clockSkewBound());
    roundTimings(config.hedge(), config.roundTimeout(), config.backoffMax());
    tickInterval(config.tickInterval());
    lease(config.lease());
    clockDriftPpm(config.clockDriftPpm());
    leaderOnlyReads(config.leaderOnlyReads());
    coreThreads(config.coreThreads());
    corePlacement(config.corePlacement());
    clockCacheBytes(config.clockCacheBytes());
    transportThreads(config.transportThreads());
    TransportConfig t = config.transport();
    draft.transportTweaks =
        b ->
            b.maxFrameBytes(t.maxFrameBytes())
                .maxQueuedFramesPerConnection(t.maxQueuedFramesPerConnection())
                .writeBufferWaterMarksBytes(
                    t.writeBufferLowWaterMarkBytes(), t.writeBufferHighWaterMarkBytes())
                .connectTimeoutMillis(t.connectTimeoutMillis())
                .reconnectBackoffMillis(
                    t.reconnectBackoffMinMillis(), t.reconnectBackoffMaxMillis());
    LsmConfig lsm = config.lsm();
    draft.lsmTweaks = b -> b.tunablesFrom(lsm);
    return this;
  }

  /** An address as the configuration wrote it (unresolved), resolved for binding. */
  private static InetSocketAddress resolved(InetSocketAddress a) {
    return new InetSocketAddress(a.getHostString(), a.getPort());
  }

  /** Required. Unique in the cluster and stable across restarts (it is in every ballot). */
  public FrsmNodeBuilder nodeId(int id) {
    draft.nodeId = id;
    return this;
  }

  /** Required: 1-64 characters of [A-Za-z0-9_.-]; equal on every node and client. */
  public FrsmNodeBuilder clusterId(String id) {
    draft.clusterId = id;
    return this;
  }

  /** Required: SSTables, manifest and the boot counter. */
  public FrsmNodeBuilder dataDirectory(Path dir) {
    draft.dataDirectory = dir;
    return this;
  }

  /** One directory per commit-log stripe (default {@code <data>/commitlog}). */
  public FrsmNodeBuilder commitLogDirectories(List<Path> dirs) {
    draft.commitLogDirectories = List.copyOf(dirs);
    return this;
  }

  /** Where peers connect (default 127.0.0.1, port 0 = any free port). */
  public FrsmNodeBuilder peerAddress(InetSocketAddress address) {
    draft.peerAddress = address;
    return this;
  }

  /** Where thin clients connect (default 127.0.0.1, port 0 = any free port). */
  public FrsmNodeBuilder clientAddress(InetSocketAddress address) {
    draft.clientAddress = address;
    return this;
  }

  /** The host others reach this node at (default: the peer address's host). */
  public FrsmNodeBuilder advertisedHost(String host) {
    draft.advertisedHost = host;
    return this;
  }

  /** Required: the ZooKeeper connect string. */
  public FrsmNodeBuilder zookeeper(String connectString) {
    draft.zookeeper = connectString;
    return this;
  }

  /** Default 10 s. Membership ends this long after the node stops answering ZooKeeper. */
  public FrsmNodeBuilder zookeeperSessionTimeout(Duration timeout) {
    draft.zookeeperSessionTimeout = timeout;
    return this;
  }

  /** The failure domain (default "default"). */
  public FrsmNodeBuilder rack(String rack) {
    draft.rack = rack;
    return this;
  }

  /**
   * Adjusts the storage engine's settings (docs/OPERATIONS.md); data and log dirs are set. Runs
   * after the adjustments given before (and after {@link #config}'s).
   */
  public FrsmNodeBuilder lsm(Consumer<LsmConfig.Builder> tweaks) {
    Objects.requireNonNull(tweaks, "lsm");
    draft.lsmTweaks = draft.lsmTweaks.andThen(tweaks);
    return this;
  }

  /**
   * Adjusts the transport's settings, peer and client protocol alike: frame limit, write-buffer
   * water marks, per-connection queue bound, connect timeout, reconnect back-off (defaults: {@link
   * TransportConfig.Builder}). The cluster id is this node's. Runs after the adjustments given
   * before (and after {@link #config}'s).
   */
  public FrsmNodeBuilder transport(Consumer<TransportConfig.Builder> tweaks) {
    Objects.requireNonNull(tweaks, "transport");
    draft.transportTweaks = draft.transportTweaks.andThen(tweaks);
    return this;
  }

  /**
   * {@code T} (default 5 s): no round for an operation starts later than {@code T} after its
   * invocation; it then ends with an unknown outcome or not executed.
   */
  public FrsmNodeBuilder boundedDelay(Duration t) {
    draft.boundedDelay = t;
    return this;
  }

  /** ε, the wall-clock skew bound between nodes (default 250 ms). */
  public FrsmNodeBuilder clockSkewBound(Duration epsilon) {
    draft.clockSkewBound = epsilon;
    return this;
  }

  /**
   * Round timings: hedge (20 ms), round timeout (200 ms), maximum back-off (50 ms). The hedge must
   * be below the round timeout.
   */
  public FrsmNodeBuilder roundTimings(Duration hedge, Duration roundTimeout, Duration backoffMax) {
    draft.hedge = hedge;
    draft.roundTimeout = roundTimeout;
    draft.backoffMax = backoffMax;
    return this;
  }

  /** How often the core checks its timers (default 2 ms, at most the hedge; 1-5 ms is sensible). */
  public FrsmNodeBuilder tickInterval(Duration interval) {
    draft.tickInterval = interval;
    return this;
  }

  /** How long close() waits for running operations (default 10 s). */
  public FrsmNodeBuilder drainTimeout(Duration timeout) {
    draft.drainTimeout = timeout;
    return this;
  }

  /** Virtual nodes per node on the ring (default 16); fixed when the cluster forms. */
  public FrsmNodeBuilder vnodes(int vnodes) {
    draft.vnodes = vnodes;
    return this;
  }

  /**
   * Replicas per range (default 3, at most {@value FrsmConfig#MAX_REPLICATION_FACTOR}); an
   * operation needs a majority of them. Stored in the cluster's shape by the node that forms the
   * cluster and fixed from then on: a node configured with another value is refused at start.
   */
  public FrsmNodeBuilder replicationFactor(int replicas) {
    draft.replicationFactor = replicas;
    return this;
  }

  /**
   * How many registered nodes form the cluster (default 3, at least the replication factor): the
   * first ones to register. Fixed when the cluster forms; later nodes with other ids are refused.
   */
  public FrsmNodeBuilder initialNodes(int nodes) {
    draft.initialNodes = nodes;
    return this;
  }

  /**
   * {@code L}, the range lease (default 2 s): renewed every L/4; a new leader waits {@code L·(1+ρ)}
   * before its first write, so this is also most of the fail-over time after the ZooKeeper session
   * of a dead leader expired.
   */
  public FrsmNodeBuilder lease(Duration lease) {
    draft.lease = lease;
    return this;
  }

  /** ρ, the bound on monotonic clock drift in parts per million (default 1000 = 10⁻³). */
  public FrsmNodeBuilder clockDriftPpm(int ppm) {
    draft.clockDriftPpm = ppm;
    return this;
  }

  /**
   * Whether the range leader answers gets (and CAS that must fail) from its own store under its
   * lease (default true). False makes every read a quorum read (1 RTT) while leases still order
   * writes: for operators who would rather not rely on the clock-drift bound for reads, and for the
   * read-mode experiment.
   */
  public FrsmNodeBuilder leaderOnlyReads(boolean enabled) {
    draft.leaderOnlyReads = enabled;
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
    draft.corePlacement = Objects.requireNonNull(placement, "corePlacement");
    return this;
  }

  /**
   * Consensus core shards (default 0: a quarter of the CPUs, at least one): each a thread owning
   * every n-th range of the ring, so a node's consensus work spreads over that many CPUs
   * (docs/PROTOCOL.md "Core shards"). At most {@link
   * io.frsm.consensus.core.ShardRouting#MAX_SHARDS}.
   */
  public FrsmNodeBuilder coreThreads(int threads) {
    draft.coreThreads = threads;
    return this;
  }

  /**
   * Experiments only (default 0): the share of CAS operations that run a prepare although their key
   * is warm, to vary the multi-phase fraction (the paper's Figure 16). Costs a round per forced
   * CAS, never safety. Not a configuration key.
   */
  public FrsmNodeBuilder forcedColdCasShare(double share) {
    draft.forcedColdCasShare = share;
    return this;
  }

  /** The clock cache's bound (default 64 MiB). */
  public FrsmNodeBuilder clockCacheBytes(long bytes) {
    draft.clockCacheBytes = bytes;
    return this;
  }

  /** Netty event-loop threads (default 0: one on a machine with 2 CPUs or fewer, else two). */
  public FrsmNodeBuilder transportThreads(int threads) {
    draft.transportThreads = threads;
    return this;
  }

  /** Where the engine's meters go (default: a private SimpleMeterRegistry). */
  public FrsmNodeBuilder meterRegistry(MeterRegistry registry) {
    draft.meterRegistry = registry;
    return this;
  }

  /**
   * A node with these settings, not started.
   *
   * @throws IllegalArgumentException naming the setting that is missing or out of range, or the
   *     settings that contradict each other
   */
  public FrsmNode build() {
    return new FrsmNode(draft.validated());
  }
}
