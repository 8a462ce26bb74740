package io.frsm.server.node;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.FrameBudget;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.NodeDefaults;
import io.frsm.server.config.SettingBounds;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ZkLayout;
import io.frsm.transport.TransportConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything a node is configured with: {@link FrsmNodeBuilder} fills a draft whose initial values
 * are the documented defaults (docs/OPERATIONS.md "Running a node"; the YAML loader's are the
 * same), and {@link #validated()} checks a copy of it, naming the builder option at fault. The
 * bounds are the YAML loader's, so a file it accepted always builds a node.
 *
 * <p>Not thread-safe while a draft; the validated copy is never changed again.
 */
final class NodeSettings implements Cloneable {
  int nodeId = -1;
  String clusterId;
  Path dataDirectory;
  List<Path> commitLogDirectories;
  InetSocketAddress peerAddress = new InetSocketAddress("127.0.0.1", 0);
  InetSocketAddress clientAddress = new InetSocketAddress("127.0.0.1", 0);
  String advertisedHost;
  String zookeeper;
  Duration zookeeperSessionTimeout = NodeDefaults.ZOOKEEPER_SESSION_TIMEOUT;
  String rack = "default";
  Consumer<LsmConfig.Builder> lsmTweaks = b -> {};
  Consumer<TransportConfig.Builder> transportTweaks = b -> {};
  Duration boundedDelay = NodeDefaults.BOUNDED_DELAY;
  Duration clockSkewBound = NodeDefaults.CLOCK_SKEW_BOUND;
  Duration hedge = NodeDefaults.HEDGE;
  Duration roundTimeout = NodeDefaults.ROUND_TIMEOUT;
  Duration backoffMax = NodeDefaults.BACKOFF_MAX;
  Duration tickInterval = NodeDefaults.TICK_INTERVAL;
  Duration drainTimeout = NodeDefaults.DRAIN_TIMEOUT;
  int vnodes = NodeDefaults.VNODES;
  int replicationFactor = FrsmConfig.DEFAULT_REPLICATION_FACTOR;
  int initialNodes = 3;
  Duration lease = NodeDefaults.LEASE;
  int clockDriftPpm = NodeDefaults.CLOCK_DRIFT_PPM;
  boolean leaderOnlyReads = NodeDefaults.LEADER_ONLY_READS;
  int coreThreads = NodeDefaults.CORE_THREADS;
  CorePlacement corePlacement = NodeDefaults.CORE_PLACEMENT;
  double forcedColdCasShare;
  long clockCacheBytes = NodeDefaults.CLOCK_CACHE_BYTES;
  int transportThreads = NodeDefaults.TRANSPORT_THREADS;
  MeterRegistry meterRegistry;

  /**
   * A checked copy: the builder may go on changing its draft without touching a built node.
   *
   * @throws IllegalArgumentException naming the option whose value is missing or out of range, or
   *     the options that contradict each other
   */
  NodeSettings validated() {
    NodeSettings s = copy();
    s.check();
    if (s.meterRegistry == null) {
      s.meterRegistry = new SimpleMeterRegistry();
    }
    return s;
  }

  private void check() {
    if (nodeId < 0) {
      throw new IllegalArgumentException("nodeId is required and must be >= 0, was " + nodeId);
    }
    new ZkLayout(clusterId); // validates the cluster id and names it in the message
    Objects.requireNonNull(dataDirectory, "dataDirectory is required");
    Objects.requireNonNull(peerAddress, "peerAddress");
    Objects.requireNonNull(clientAddress, "clientAddress");
    if (zookeeper == null || zookeeper.isBlank()) {
      throw new IllegalArgumentException("zookeeper connect string is required");
    }
    within(
        "zookeeperSessionTimeout",
        zookeeperSessionTimeout,
        SettingBounds.ZOOKEEPER_SESSION_TIMEOUT);
    ClusterShape.checkRack(rack);
    Objects.requireNonNull(lsmTweaks, "lsm");
    Objects.requireNonNull(transportTweaks, "transport");
    checkRing();
    checkTimings();
    within("clockDriftPpm", clockDriftPpm, SettingBounds.CLOCK_DRIFT_PPM);
    modes(); // validates forcedColdCasShare
    within("clockCacheBytes", clockCacheBytes, SettingBounds.CLOCK_CACHE_BYTES);
    within("coreThreads", coreThreads, SettingBounds.CORE_THREADS);
    within("transportThreads", transportThreads, SettingBounds.TRANSPORT_THREADS);
    LsmConfig lsm = lsmConfig(); // names the bad storage-engine key
    TransportConfig transport = transportConfig(); // names the bad transport key
    long frameNeeded =
        FrameBudget.minimumFrameBytes(lsm.maxKeySizeBytes(), lsm.maxValueSizeBytes());
    if (transport.maxFrameBytes() < frameNeeded) {
      throw new IllegalArgumentException(
          "transport maxFrameBytes "
              + transport.maxFrameBytes()
              + " cannot carry the largest key and value the lsm accepts: it must be at least "
              + frameNeeded
              + " = maxKeySizeBytes + max(maxValueSizeBytes, 4 MiB key listing) + 64 KiB");
    }
  }

  private void checkRing() {
    within("vnodes", vnodes, SettingBounds.VNODES);
    within("replicationFactor", replicationFactor, SettingBounds.REPLICATION_FACTOR);
    // Every range needs replicationFactor distinct nodes, so the cluster cannot form with fewer.
    if (initialNodes < replicationFactor || initialNodes > SettingBounds.MAX_INITIAL_NODES) {
      throw new IllegalArgumentException(
          "initialNodes must be in [replicationFactor = "
              + replicationFactor
              + ", "
              + SettingBounds.MAX_INITIAL_NODES
              + "], was "
              + initialNodes);
    }
  }

  private void checkTimings() {
    within("boundedDelay", boundedDelay, SettingBounds.BOUNDED_DELAY);
    within("clockSkewBound", clockSkewBound, SettingBounds.CLOCK_SKEW_BOUND);
    within("hedge", hedge, SettingBounds.HEDGE);
    within("roundTimeout", roundTimeout, SettingBounds.ROUND_TIMEOUT);
    // A hedge at or after the timeout never widens a round: the round fails instead.
    ordered("hedge", hedge, "roundTimeout", roundTimeout, false);
    within("backoffMax", backoffMax, SettingBounds.BACKOFF_MAX);
    // Timers fire on ticks: a longer tick would delay every hedge past its setting.
    within("tickInterval", tickInterval, SettingBounds.TICK_INTERVAL);
    ordered("tickInterval", tickInterval, "hedge", hedge, true);
    within("drainTimeout", drainTimeout, SettingBounds.DRAIN_TIMEOUT);
    within("lease", lease, SettingBounds.LEASE);
  }

  /** T and ε as the cluster's shape publishes them. */
  io.frsm.server.zk.ClusterTiming timing() {
    return new io.frsm.server.zk.ClusterTiming(boundedDelay, clockSkewBound);
  }

  LsmConfig lsmConfig() {
    LsmConfig.Builder b = LsmConfig.builder(dataDirectory);
    if (commitLogDirectories != null) {
      b.commitLogDirectories(commitLogDirectories);
    }
    lsmTweaks.accept(b);
    return b.build();
  }

  TransportConfig transportConfig() {
    TransportConfig.Builder b = TransportConfig.builder(clusterId);
    transportTweaks.accept(b);
    return b.build();
  }

  CoreConfig.Modes modes() {
    return new CoreConfig.Modes(leaderOnlyReads, forcedColdCasShare);
  }

  String advertisedHost() {
    if (advertisedHost != null) {
      return advertisedHost;
    }
    return peerAddress.getAddress() != null && !peerAddress.getAddress().isAnyLocalAddress()
        ? peerAddress.getAddress().getHostAddress()
        : peerAddress.getHostString();
  }

  /** Every field is immutable or replaced as a whole by the builder: a shallow copy suffices. */
  private NodeSettings copy() {
    try {
      return (NodeSettings) clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Refuses {@code lower} unless it is below {@code upper} (or equal to it, if {@code mayEqual}),
   * naming both settings and their values.
   */
  private static void ordered(
      String lowerName, Duration lower, String upperName, Duration upper, boolean mayEqual) {
    int order = lower.compareTo(upper);
    if (order > 0 || (order == 0 && !mayEqual)) {
      throw new IllegalArgumentException(
          lowerName
              + " ("
              + format(lower)
              + ") must "
              + (mayEqual ? "not exceed " : "be below ")
              + upperName
              + " ("
              + format(upper)
              + ")");
    }
  }

  private static void within(String name, Duration value, SettingBounds.Span bounds) {
    Objects.requireNonNull(value, name);
    if (!bounds.contains(value)) {
      throw new IllegalArgumentException(name + " must be in " + bounds + ", was " + format(value));
    }
  }

  private static void within(String name, long value, SettingBounds.Whole bounds) {
    if (!bounds.contains(value)) {
      throw new IllegalArgumentException(name + " must be in " + bounds + ", was " + value);
    }
  }

  private static String format(Duration d) {
    try {
      return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toNanos() + " ns";
    } catch (ArithmeticException beyondNanos) {
      return d.toString();
    }
  }
}
