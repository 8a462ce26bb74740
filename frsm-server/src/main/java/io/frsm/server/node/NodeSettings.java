package io.frsm.server.node;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.TransportKeys;
import io.frsm.server.config.ZooKeeperKeys;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.transport.TransportConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The settings a node runs with, as fields named the way {@link FrsmNode} reads them: a view of a
 * checked {@link FrsmConfig} plus the two options that are not configuration keys (the forced-cold
 * CAS share of experiments and the meter registry).
 *
 * <p>Transitional: it exists so that {@link FrsmNode} need not change while it is split into
 * components. Once those read {@code config.get(ConsensusKeys.CLOCK_DRIFT_PPM)} and the like from
 * the {@link FrsmConfig} directly, this class goes.
 *
 * <p>Immutable.
 */
final class NodeSettings {
  final int nodeId;
  final String clusterId;
  final Path dataDirectory;
  final List<Path> commitLogDirectories;
  final InetSocketAddress peerAddress;
  final InetSocketAddress clientAddress;
  private final String advertisedHost;
  final String zookeeper;
  final Duration zookeeperSessionTimeout;
  final String rack;
  final Duration boundedDelay;
  final Duration clockSkewBound;
  final Duration hedge;
  final Duration roundTimeout;
  final Duration backoffMax;
  final Duration tickInterval;
  final Duration drainTimeout;
  final int vnodes;
  final int replicationFactor;
  final int initialNodes;
  final Duration lease;
  final int clockDriftPpm;
  final boolean leaderOnlyReads;
  final int coreThreads;
  final CorePlacement corePlacement;
  final double forcedColdCasShare;
  final long clockCacheBytes;
  final int transportThreads;
  final MeterRegistry meterRegistry;
  private final LsmConfig lsmConfig;
  private final TransportConfig transportConfig;
  private final CoreConfig.Modes modes;

  /**
   * @param forcedColdCasShare experiments only, in [0, 1] ({@code FrsmNodeBuilder})
   * @param meterRegistry null: a private {@link SimpleMeterRegistry}
   * @throws IllegalArgumentException if {@code forcedColdCasShare} is outside [0, 1]
   */
  NodeSettings(FrsmConfig config, double forcedColdCasShare, MeterRegistry meterRegistry) {
    this.nodeId = config.get(NodeKeys.ID);
    this.clusterId = config.get(NodeKeys.CLUSTER_ID);
    this.dataDirectory = config.get(NodeKeys.DATA_DIRECTORY);
    this.commitLogDirectories = config.get(NodeKeys.COMMIT_LOG_DIRECTORIES);
    this.peerAddress = resolved(config.get(NodeKeys.PEER_ADDRESS));
    this.clientAddress = resolved(config.get(NodeKeys.CLIENT_ADDRESS));
    this.advertisedHost = config.get(NodeKeys.ADVERTISED_HOST);
    this.zookeeper = config.get(ZooKeeperKeys.CONNECT);
    this.zookeeperSessionTimeout = config.get(ZooKeeperKeys.SESSION_TIMEOUT);
    this.rack = config.get(NodeKeys.RACK);
    this.boundedDelay = config.get(ConsensusKeys.BOUNDED_DELAY);
    this.clockSkewBound = config.get(ConsensusKeys.CLOCK_SKEW_BOUND);
    this.hedge = config.get(ConsensusKeys.HEDGE);
    this.roundTimeout = config.get(ConsensusKeys.ROUND_TIMEOUT);
    this.backoffMax = config.get(ConsensusKeys.BACKOFF_MAX);
    this.tickInterval = config.get(ConsensusKeys.TICK_INTERVAL);
    this.drainTimeout = config.get(NodeKeys.DRAIN_TIMEOUT);
    this.vnodes = config.get(RingKeys.VNODES);
    this.replicationFactor = config.get(RingKeys.REPLICATION_FACTOR);
    this.initialNodes = config.get(NodeKeys.INITIAL_NODES);
    this.lease = config.get(ConsensusKeys.LEASE);
    this.clockDriftPpm = config.get(ConsensusKeys.CLOCK_DRIFT_PPM);
    this.leaderOnlyReads = config.get(ConsensusKeys.LEADER_ONLY_READS);
    this.coreThreads = config.get(ConsensusKeys.CORE_THREADS);
    this.corePlacement = config.get(ConsensusKeys.CORE_ON_TRANSPORT_LOOP);
    this.forcedColdCasShare = forcedColdCasShare;
    this.clockCacheBytes = config.get(ConsensusKeys.CLOCK_CACHE_BYTES);
    this.transportThreads = config.get(TransportKeys.THREADS);
    this.meterRegistry = meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
    this.lsmConfig = config.lsm();
    this.transportConfig = config.transport();
    this.modes = new CoreConfig.Modes(leaderOnlyReads, forcedColdCasShare);
  }

  /** An address as the configuration wrote it (perhaps unresolved), resolved for binding. */
  private static InetSocketAddress resolved(InetSocketAddress a) {
    return a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a;
  }

  /** T and ε as the cluster's shape publishes them. */
  ClusterTiming timing() {
    return new ClusterTiming(boundedDelay, clockSkewBound);
  }

  LsmConfig lsmConfig() {
    return lsmConfig;
  }

  TransportConfig transportConfig() {
    return transportConfig;
  }

  CoreConfig.Modes modes() {
    return modes;
  }

  /** The host others reach this node at: as configured, else the peer address's. */
  String advertisedHost() {
    if (advertisedHost != null) {
      return advertisedHost;
    }
    return peerAddress.getAddress() != null && !peerAddress.getAddress().isAnyLocalAddress()
        ? peerAddress.getAddress().getHostAddress()
        : peerAddress.getHostString();
  }
}
