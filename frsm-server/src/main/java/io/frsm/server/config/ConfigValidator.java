package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ZkLayout;
import io.frsm.transport.TransportConfig;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Checks a {@link ConfigDraft} and turns it into a {@link FrsmConfig}: every range and every rule
 * between keys, each failure a {@link ConfigException} naming the key (or keys) at fault. The
 * bounds are those {@code FrsmNodeBuilder} enforces, so a file the loader accepts always builds a
 * node.
 */
final class ConfigValidator {
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
    within("node.drainTimeout", d.drainTimeout, SettingBounds.DRAIN_TIMEOUT);
    within(
        "zookeeper.sessionTimeout",
        d.zookeeperSessionTimeout,
        SettingBounds.ZOOKEEPER_SESSION_TIMEOUT);
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
        d.corePlacement,
        d.clockCacheBytes,
        d.transportThreads,
        transport,
        d.metricsPort,
        lsm);
  }

  private static void checkCluster(ConfigDraft d) {
    within("ring.replicationFactor", d.replicationFactor, SettingBounds.REPLICATION_FACTOR);
    // Every range needs replicationFactor distinct nodes, so the cluster cannot form with fewer.
    if (d.initialNodes < d.replicationFactor || d.initialNodes > SettingBounds.MAX_INITIAL_NODES) {
      throw new ConfigException(
          "config key 'cluster.initialNodes' must be in [ring.replicationFactor = "
              + d.replicationFactor
              + ", "
              + SettingBounds.MAX_INITIAL_NODES
              + "], was "
              + d.initialNodes);
    }
    within("ring.vnodes", d.vnodes, SettingBounds.VNODES);
  }

  private static void checkConsensus(ConfigDraft d) {
    within("consensus.boundedDelay", d.boundedDelay, SettingBounds.BOUNDED_DELAY);
    within("consensus.clockSkewBound", d.clockSkewBound, SettingBounds.CLOCK_SKEW_BOUND);
    within("consensus.hedge", d.hedge, SettingBounds.HEDGE);
    within("consensus.roundTimeout", d.roundTimeout, SettingBounds.ROUND_TIMEOUT);
    // A hedge at or after the timeout never widens a round: it would fail instead.
    if (d.hedge.compareTo(d.roundTimeout) >= 0) {
      throw new ConfigException(
          "config key 'consensus.hedge' ("
              + Units.format(d.hedge)
              + ") must be below 'consensus.roundTimeout' ("
              + Units.format(d.roundTimeout)
              + ")");
    }
    within("consensus.backoffMax", d.backoffMax, SettingBounds.BACKOFF_MAX);
    // Timers fire on ticks: a longer tick would delay every hedge past its setting.
    within("consensus.tickInterval", d.tickInterval, SettingBounds.TICK_INTERVAL);
    if (d.tickInterval.compareTo(d.hedge) > 0) {
      throw new ConfigException(
          "config key 'consensus.tickInterval' ("
              + Units.format(d.tickInterval)
              + ") must not exceed 'consensus.hedge' ("
              + Units.format(d.hedge)
              + ")");
    }
    within("consensus.lease", d.lease, SettingBounds.LEASE);
    within("consensus.clockDriftPpm", d.clockDriftPpm, SettingBounds.CLOCK_DRIFT_PPM);
    within("consensus.clockCacheBytes", d.clockCacheBytes, SettingBounds.CLOCK_CACHE_BYTES);
  }

  private static LsmConfig lsm(ConfigDraft d) {
    LsmConfig.Builder lsm = LsmConfig.builder(d.dataDirectory);
    if (d.commitLogDirectories != null) {
      lsm.commitLogDirectories(d.commitLogDirectories);
    }
    try {
      for (Consumer<LsmConfig.Builder> apply : d.lsm) {
        apply.accept(lsm); // some setters check their value at once
      }
      return lsm.build();
    } catch (IllegalArgumentException e) {
      // LsmConfig names its own key (e.g. "numberOfCompactionThreads"); give it its section.
      throw new ConfigException("config section 'lsm': " + e.getMessage(), e);
    }
  }

  private static TransportConfig transport(ConfigDraft d, LsmConfig lsm) {
    within("consensus.coreThreads", d.coreThreads, SettingBounds.CORE_THREADS);
    within("transport.threads", d.transportThreads, SettingBounds.TRANSPORT_THREADS);
    atLeastOne("transport.maxFrameBytes", d.maxFrameBytes);
    atLeastOne("transport.maxQueuedFramesPerConnection", d.maxQueuedFramesPerConnection);
    atLeastOne("transport.writeBufferLowWaterMarkBytes", d.writeBufferLowWaterMarkBytes);
    atLeastOne("transport.writeBufferHighWaterMarkBytes", d.writeBufferHighWaterMarkBytes);
    if (d.writeBufferLowWaterMarkBytes > d.writeBufferHighWaterMarkBytes) {
      throw new ConfigException(
          "config key 'transport.writeBufferLowWaterMarkBytes' must not exceed"
              + " 'transport.writeBufferHighWaterMarkBytes'");
    }
    within("transport.connectTimeout", d.connectTimeout, SettingBounds.TRANSPORT_TIMING);
    within("transport.reconnectBackoffMin", d.reconnectBackoffMin, SettingBounds.TRANSPORT_TIMING);
    within("transport.reconnectBackoffMax", d.reconnectBackoffMax, SettingBounds.TRANSPORT_TIMING);
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

  private static void within(String key, Duration value, SettingBounds.Span bounds) {
    if (!bounds.contains(value)) {
      throw new ConfigException(
          "config key '" + key + "' must be in " + bounds + ", was " + Units.format(value));
    }
  }

  private static void within(String key, long value, SettingBounds.Whole bounds) {
    if (!bounds.contains(value)) {
      throw new ConfigException("config key '" + key + "' must be in " + bounds + ", was " + value);
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
