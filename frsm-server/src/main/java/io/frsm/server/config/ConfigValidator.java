package io.frsm.server.config;

import io.frsm.consensus.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ZkLayout;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Checks a {@link ConfigDraft} and turns it into a {@link FrsmConfig}: every range and every rule
 * between keys, each failure a {@link ConfigException} naming the key (or keys) at fault. The
 * bounds are those {@code FrsmNode.Builder} enforces, so a file the loader accepts always builds a
 * node.
 */
final class ConfigValidator {
  /**
   * No timing setting needs more; the bound also keeps every duration far from overflowing the
   * nanosecond and millisecond arithmetic of the node, the core and ZooKeeper.
   */
  static final Duration MAX_TIMING = Duration.ofHours(1);

  private static final Duration ONE_MS = Duration.ofMillis(1);

  private ConfigValidator() {}

  static FrsmConfig validate(ConfigDraft d, String source) {
    if (d.nodeId == null) {
      throw new ConfigException(
          "config key 'node.id' is required (in " + source + " or FRSM_NODE_ID)");
    }
    if (d.nodeId < 0) {
      throw new ConfigException("config key 'node.id' must be >= 0, was " + d.nodeId);
    }
    if (d.dataDirectory == null) {
      throw new ConfigException("config key 'node.dataDirectory' is required");
    }
    if (d.zookeeperConnect == null || d.zookeeperConnect.isBlank()) {
      throw new ConfigException("config key 'zookeeper.connect' is required");
    }
    named("cluster.id", () -> new ZkLayout(d.clusterId));
    named("node.rack", () -> ClusterShape.checkRack(d.rack));
    checkCluster(d);
    within("node.drainTimeout", d.drainTimeout, Duration.ZERO, MAX_TIMING);
    within("zookeeper.sessionTimeout", d.zookeeperSessionTimeout, ONE_MS, MAX_TIMING);
    checkConsensus(d);
    if (d.metricsPort < 0 || d.metricsPort > 65535) {
      throw new ConfigException("config key 'metrics.port' must be in [0, 65535]");
    }
    LsmConfig lsm = lsm(d);
    TransportConfig transport = transport(d, lsm);
    return new FrsmConfig(
        d.clusterId,
        d.initialNodes,
        d.nodeId,
        d.rack,
        d.peerAddress,
        d.clientAddress,
        d.advertisedHost,
        d.drainTimeout,
        d.zookeeperConnect,
        d.zookeeperSessionTimeout,
        d.vnodes,
        d.replicationFactor,
        d.boundedDelay,
        d.clockSkewBound,
        d.hedge,
        d.roundTimeout,
        d.backoffMax,
        d.tickInterval,
        d.lease,
        d.clockDriftPpm,
        d.leaderOnlyReads,
        d.coreThreads,
        d.clockCacheBytes,
        d.transportThreads,
        transport,
        d.metricsPort,
        lsm);
  }

  private static void checkCluster(ConfigDraft d) {
    if (d.replicationFactor < 1 || d.replicationFactor > FrsmConfig.MAX_REPLICATION_FACTOR) {
      throw new ConfigException(
          "config key 'ring.replicationFactor' must be in [1, "
              + FrsmConfig.MAX_REPLICATION_FACTOR
              + "], was "
              + d.replicationFactor);
    }
    // Every range needs replicationFactor distinct nodes, so the cluster cannot form with fewer.
    if (d.initialNodes < d.replicationFactor || d.initialNodes > 10_000) {
      throw new ConfigException(
          "config key 'cluster.initialNodes' must be in [ring.replicationFactor = "
              + d.replicationFactor
              + ", 10000], was "
              + d.initialNodes);
    }
    if (d.vnodes < 1 || d.vnodes > 4096) {
      throw new ConfigException("config key 'ring.vnodes' must be in [1, 4096], was " + d.vnodes);
    }
  }

  private static void checkConsensus(ConfigDraft d) {
    within("consensus.boundedDelay", d.boundedDelay, ONE_MS, MAX_TIMING);
    within("consensus.clockSkewBound", d.clockSkewBound, Duration.ZERO, MAX_TIMING);
    within("consensus.hedge", d.hedge, ONE_MS, MAX_TIMING);
    within("consensus.roundTimeout", d.roundTimeout, ONE_MS, MAX_TIMING);
    // A hedge at or after the timeout never widens a round: it would fail instead.
    if (d.hedge.compareTo(d.roundTimeout) >= 0) {
      throw new ConfigException(
          "config key 'consensus.hedge' ("
              + Units.format(d.hedge)
              + ") must be below 'consensus.roundTimeout' ("
              + Units.format(d.roundTimeout)
              + ")");
    }
    within("consensus.backoffMax", d.backoffMax, ONE_MS, MAX_TIMING);
    // Timers fire on ticks: a longer tick would delay every hedge past its setting.
    within("consensus.tickInterval", d.tickInterval, ONE_MS, MAX_TIMING);
    if (d.tickInterval.compareTo(d.hedge) > 0) {
      throw new ConfigException(
          "config key 'consensus.tickInterval' ("
              + Units.format(d.tickInterval)
              + ") must not exceed 'consensus.hedge' ("
              + Units.format(d.hedge)
              + ")");
    }
    // Renewals run every L/4, which must be at least a millisecond.
    within("consensus.lease", d.lease, Duration.ofMillis(4), MAX_TIMING);
    if (d.clockDriftPpm < 0 || d.clockDriftPpm >= 100_000) {
      throw new ConfigException(
          "config key 'consensus.clockDriftPpm' must be in [0, 100000), was " + d.clockDriftPpm);
    }
  }

  private static LsmConfig lsm(ConfigDraft d) {
    LsmConfig.Builder lsm = LsmConfig.builder(d.dataDirectory);
    if (d.commitLogDirectories != null) {
      lsm.commitLogDirectories(d.commitLogDirectories);
    }
    for (Consumer<LsmConfig.Builder> apply : d.lsm) {
      apply.accept(lsm);
    }
    try {
      return lsm.build();
    } catch (IllegalArgumentException e) {
      // LsmConfig names its own key (e.g. "numberOfCompactionThreads"); give it its section.
      throw new ConfigException("config section 'lsm': " + e.getMessage(), e);
    }
  }

  private static TransportConfig transport(ConfigDraft d, LsmConfig lsm) {
    if (d.coreThreads < 0 || d.coreThreads > io.frsm.consensus.core.ShardRouting.MAX_SHARDS) {
      throw new ConfigException(
          "config key 'consensus.coreThreads' must be in [0, "
              + io.frsm.consensus.core.ShardRouting.MAX_SHARDS
              + "] (0: a quarter of the CPUs), was "
              + d.coreThreads);
    }
    if (d.transportThreads < 1 || d.transportThreads > 1024) {
      throw new ConfigException(
          "config key 'transport.threads' must be in [1, 1024], was " + d.transportThreads);
    }
    atLeastOne("transport.maxFrameBytes", d.maxFrameBytes);
    atLeastOne("transport.maxQueuedFramesPerConnection", d.maxQueuedFramesPerConnection);
    atLeastOne("transport.writeBufferLowWaterMarkBytes", d.writeBufferLowWaterMarkBytes);
    atLeastOne("transport.writeBufferHighWaterMarkBytes", d.writeBufferHighWaterMarkBytes);
    if (d.writeBufferLowWaterMarkBytes > d.writeBufferHighWaterMarkBytes) {
      throw new ConfigException(
          "config key 'transport.writeBufferLowWaterMarkBytes' must not exceed"
              + " 'transport.writeBufferHighWaterMarkBytes'");
    }
    within("transport.connectTimeout", d.connectTimeout, ONE_MS, MAX_TIMING);
    within("transport.reconnectBackoffMin", d.reconnectBackoffMin, ONE_MS, MAX_TIMING);
    within("transport.reconnectBackoffMax", d.reconnectBackoffMax, ONE_MS, MAX_TIMING);
    if (d.reconnectBackoffMin.compareTo(d.reconnectBackoffMax) > 0) {
      throw new ConfigException(
          "config key 'transport.reconnectBackoffMin' must not exceed"
              + " 'transport.reconnectBackoffMax'");
    }
    long needed = FrameBudget.minimumFrameBytes(lsm.maxKeySizeBytes(), lsm.maxValueSizeBytes());
    if (d.maxFrameBytes < needed) {
      throw new ConfigException(
          "config key 'transport.maxFrameBytes' ("
              + d.maxFrameBytes
              + ") must be at least "
              + needed
              + " = 'lsm.maxKeySizeBytes' + max('lsm.maxValueSizeBytes', 4MiB key listing) +"
              + " 64KiB, or the largest writes could not be replicated");
    }
    try {
      return TransportConfig.builder(d.clusterId)
          .maxFrameBytes(d.maxFrameBytes)
          .maxQueuedFramesPerConnection(d.maxQueuedFramesPerConnection)
          .writeBufferWaterMarksBytes(
              d.writeBufferLowWaterMarkBytes, d.writeBufferHighWaterMarkBytes)
          .connectTimeoutMillis((int) d.connectTimeout.toMillis())
          .reconnectBackoffMillis(
              d.reconnectBackoffMin.toMillis(), d.reconnectBackoffMax.toMillis())
          .build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config section 'transport': " + e.getMessage(), e);
    }
  }

  private static void within(String key, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new ConfigException(
          "config key '"
              + key
              + "' must be in ["
              + Units.format(min)
              + ", "
              + Units.format(max)
              + "], was "
              + Units.format(value));
    }
  }

  private static void atLeastOne(String key, int value) {
    if (value < 1) {
      throw new ConfigException("config key '" + key + "' must be >= 1, was " + value);
    }
  }

  /** Runs a check written for the builder and names the key in its failure. */
  private static void named(String key, Runnable check) {
    try {
      check.run();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config key '" + key + "': " + e.getMessage(), e);
    }
  }
}
