package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import io.frsm.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The values the keys of a file and its environment set, before {@link ConfigValidator} checks
 * them. The initial values are the documented defaults (docs/OPERATIONS.md); they equal {@code
 * FrsmNodeBuilder}'s, which {@code FrsmNodeConfigTest} checks. Transport and storage defaults are
 * not repeated here: they are {@link TransportConfig}'s and {@link LsmConfig}'s own.
 */
final class ConfigDraft {
  private static final TransportConfig TRANSPORT_DEFAULTS = TransportConfig.builder("d").build();

  String clusterId = "frsm";
  int initialNodes = 3;
  Integer nodeId;
  String rack = "default";
  Path dataDirectory;
  List<Path> commitLogDirectories;
  // Unresolved, as the file's addresses are: FrsmNodeBuilder.config resolves them.
  InetSocketAddress peerAddress = InetSocketAddress.createUnresolved("0.0.0.0", 7400);
  InetSocketAddress clientAddress = InetSocketAddress.createUnresolved("0.0.0.0", 7500);
  String advertisedHost;
  Duration drainTimeout = NodeDefaults.DRAIN_TIMEOUT;
  String zookeeperConnect;
  Duration zookeeperSessionTimeout = NodeDefaults.ZOOKEEPER_SESSION_TIMEOUT;
  int vnodes = NodeDefaults.VNODES;
  int replicationFactor = FrsmConfig.DEFAULT_REPLICATION_FACTOR;
  Duration boundedDelay = NodeDefaults.BOUNDED_DELAY;
  Duration clockSkewBound = NodeDefaults.CLOCK_SKEW_BOUND;
  Duration hedge = NodeDefaults.HEDGE;
  Duration roundTimeout = NodeDefaults.ROUND_TIMEOUT;
  Duration backoffMax = NodeDefaults.BACKOFF_MAX;
  Duration tickInterval = NodeDefaults.TICK_INTERVAL;
  Duration lease = NodeDefaults.LEASE;
  int clockDriftPpm = NodeDefaults.CLOCK_DRIFT_PPM;
  boolean leaderOnlyReads = NodeDefaults.LEADER_ONLY_READS;
  int coreThreads = NodeDefaults.CORE_THREADS;
  CorePlacement corePlacement = NodeDefaults.CORE_PLACEMENT;
  long clockCacheBytes = NodeDefaults.CLOCK_CACHE_BYTES;
  int transportThreads = NodeDefaults.TRANSPORT_THREADS;
  int maxFrameBytes = TRANSPORT_DEFAULTS.maxFrameBytes();
  int maxQueuedFramesPerConnection = TRANSPORT_DEFAULTS.maxQueuedFramesPerConnection();
  int writeBufferLowWaterMarkBytes = TRANSPORT_DEFAULTS.writeBufferLowWaterMarkBytes();
  int writeBufferHighWaterMarkBytes = TRANSPORT_DEFAULTS.writeBufferHighWaterMarkBytes();
  Duration connectTimeout = Duration.ofMillis(TRANSPORT_DEFAULTS.connectTimeoutMillis());
  Duration reconnectBackoffMin = Duration.ofMillis(TRANSPORT_DEFAULTS.reconnectBackoffMinMillis());
  Duration reconnectBackoffMax = Duration.ofMillis(TRANSPORT_DEFAULTS.reconnectBackoffMaxMillis());
  int metricsPort = 9404;

  /** The storage engine keys, applied in order to a builder for the data directory. */
  final List<Consumer<LsmConfig.Builder>> lsm = new ArrayList<>();
}
