package io.frsm.server.config;

import io.frsm.consensus.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The values the keys of a file and its environment set, before {@link ConfigValidator} checks
 * them. The initial values are the documented defaults (docs/OPERATIONS.md); they equal {@code
 * FrsmNode.Builder}'s, which {@code FrsmNodeConfigTest} checks. Transport and storage defaults are
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
  // Unresolved, as the file's addresses are: FrsmNode.Builder.config resolves them.
  InetSocketAddress peerAddress = InetSocketAddress.createUnresolved("0.0.0.0", 7400);
  InetSocketAddress clientAddress = InetSocketAddress.createUnresolved("0.0.0.0", 7500);
  String advertisedHost;
  Duration drainTimeout = Duration.ofSeconds(10);
  String zookeeperConnect;
  Duration zookeeperSessionTimeout = Duration.ofSeconds(10);
  int vnodes = 16;
  int replicationFactor = FrsmConfig.DEFAULT_REPLICATION_FACTOR;
  Duration boundedDelay = Duration.ofSeconds(5);
  Duration clockSkewBound = Duration.ofMillis(250);
  Duration hedge = Duration.ofMillis(20);
  Duration roundTimeout = Duration.ofMillis(200);
  Duration backoffMax = Duration.ofMillis(50);
  Duration tickInterval = Duration.ofMillis(2);
  Duration lease = Duration.ofSeconds(2);
  int clockDriftPpm = 1000;
  boolean leaderOnlyReads = true;
  long clockCacheBytes = 64L * 1024 * 1024;
  int transportThreads = 2;
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
