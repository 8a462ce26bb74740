package io.frsm.server.node;

import io.frsm.client.transport.TransportConfig;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Placement;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.NodeDefaults;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.TransportKeys;
import io.frsm.server.zk.ClusterTiming;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a node is built with: its checked {@link FrsmConfig} (every key declared once, in the {@code
 * *Keys} classes of {@code io.frsm.server.config}) and the three options that are not configuration
 * keys — the forced-cold CAS share of experiments, the meter registry and who hears of a fatal
 * error — plus the few values derived from several keys. Settings are read with {@link #get}.
 *
 * @param forcedColdCasShare experiments only, in [0, 1] ({@link
 *     FrsmNodeBuilder#forcedColdCasShare})
 * @param meterRegistry where the node's meters go
 * @param onFatalError told once if the node stops serving on a fatal error ({@link
 *     FrsmNodeBuilder#onFatalError})
 * @param peerLinkFaults tests only: faults on the node's peer links; null (production): none
 * @param diskSpace tests only: where the disk space guard reads free space; null (production): the
 *     file stores
 */
record NodeSettings(
    FrsmConfig config,
    double forcedColdCasShare,
    MeterRegistry meterRegistry,
    Consumer<Throwable> onFatalError,
    PeerLinkFaults peerLinkFaults,
    DiskSpaceGuard.Probe diskSpace) {

  /**
   * @param meterRegistry null: a private {@link SimpleMeterRegistry}
   * @param onFatalError null: nobody (the host application watches {@link FrsmNode#serving()})
   * @throws IllegalArgumentException if {@code forcedColdCasShare} is outside [0, 1]
   */
  NodeSettings {
    Objects.requireNonNull(config, "config");
    new CoreConfig.Modes(
        config.get(ConsensusKeys.LEADER_ONLY_READS), forcedColdCasShare); // checks it
    meterRegistry = meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
    onFatalError = onFatalError != null ? onFatalError : error -> {};
    diskSpace = diskSpace != null ? diskSpace : DiskSpaceGuard.Probe.FILE_STORE;
  }

  NodeSettings(FrsmConfig config, double forcedColdCasShare, MeterRegistry meterRegistry) {
    this(config, forcedColdCasShare, meterRegistry, null, null, null);
  }

  <T> T get(ConfigKey<T> key) {
    return config.get(key);
  }

  int nodeId() {
    return config.get(NodeKeys.ID);
  }

  /** Where peers connect, resolved for binding. */
  InetSocketAddress peerAddress() {
    return resolved(config.get(NodeKeys.PEER_ADDRESS));
  }

  /** Where thin clients connect, resolved for binding. */
  InetSocketAddress clientAddress() {
    return resolved(config.get(NodeKeys.CLIENT_ADDRESS));
  }

  /** An address as the configuration wrote it (perhaps unresolved), resolved for binding. */
  private static InetSocketAddress resolved(InetSocketAddress a) {
    return a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a;
  }

  /** The host others reach this node at: as configured, else the peer address's. */
  String advertisedHost() {
    String configured = config.get(NodeKeys.ADVERTISED_HOST);
    if (configured != null) {
      return configured;
    }
    InetSocketAddress peer = peerAddress();
    return peer.getAddress() != null && !peer.getAddress().isAnyLocalAddress()
        ? peer.getAddress().getHostAddress()
        : peer.getHostString();
  }

  /** T and ε as the cluster's shape publishes them. */
  ClusterTiming timing() {
    return new ClusterTiming(
        config.get(ConsensusKeys.BOUNDED_DELAY), config.get(ConsensusKeys.CLOCK_SKEW_BOUND));
  }

  /** Netty event loops to run: as configured, 0 meaning by the machine's CPUs. */
  int transportLoops() {
    int configured = config.get(TransportKeys.THREADS);
    return configured == 0
        ? NodeDefaults.transportThreads(Runtime.getRuntime().availableProcessors())
        : configured;
  }

  /**
   * How long a forwarded operation may take before it is answered "not executed": its bounded delay
   * T plus room for ten rounds after the last one may start.
   */
  Duration forwardingTimeout() {
    return config
        .get(ConsensusKeys.BOUNDED_DELAY)
        .plus(config.get(ConsensusKeys.ROUND_TIMEOUT).multipliedBy(10));
  }

  /** {@code T + 2ε}: how long after a create with an unknown outcome its fence waits. */
  Duration createSettle() {
    return config
        .get(ConsensusKeys.BOUNDED_DELAY)
        .plus(config.get(ConsensusKeys.CLOCK_SKEW_BOUND).multipliedBy(2));
  }

  LsmConfig lsmConfig() {
    return config.lsm();
  }

  TransportConfig transportConfig() {
    return config.transport();
  }

  /** The consensus core's configuration over {@code placement}: timings, leases, read modes. */
  CoreConfig coreConfig(Placement placement) {
    return CoreConfig.builder(placement)
        .boundedDelay(config.get(ConsensusKeys.BOUNDED_DELAY))
        .hedgeDelay(config.get(ConsensusKeys.HEDGE))
        .roundTimeout(config.get(ConsensusKeys.ROUND_TIMEOUT))
        .backoffMax(config.get(ConsensusKeys.BACKOFF_MAX))
        .leases(
            new LeaseConfig(
                true, config.get(ConsensusKeys.LEASE), config.get(ConsensusKeys.CLOCK_DRIFT_PPM)))
        .modes(modes())
        .settleKeysPerSecond(config.get(ConsensusKeys.SETTLE_KEYS_PER_SECOND))
        .build();
  }

  /**
   * What a node's hand-backs may drain (consensus.handOffMaxKeys and the keys after it); the stop
   * wait, unset, is two leases.
   */
  io.frsm.server.zk.HandOffLimits handOffLimits() {
    return handOffLimits(config);
  }

  /**
   * A budget below the per-range cap counts as the cap: one full drain must be able to start, and
   * each key stays valid on its own whatever the other's value.
   */
  private static io.frsm.server.zk.HandOffLimits handOffLimits(FrsmConfig config) {
    int maxKeys = config.get(ConsensusKeys.HAND_OFF_MAX_KEYS);
    return new io.frsm.server.zk.HandOffLimits(
        maxKeys,
        Math.max(maxKeys, config.get(ConsensusKeys.HAND_OFF_DRAIN_BUDGET_KEYS)),
        config.get(ConsensusKeys.HAND_OFF_MAX_ABSENCE),
        stopWait(config));
  }

  private static java.time.Duration stopWait(FrsmConfig config) {
    java.time.Duration set = config.get(ConsensusKeys.HAND_OFF_STOP_WAIT);
    return set != null ? set : config.get(ConsensusKeys.LEASE).multipliedBy(2);
  }

  CoreConfig.Modes modes() {
    return new CoreConfig.Modes(config.get(ConsensusKeys.LEADER_ONLY_READS), forcedColdCasShare)
        .withHandOff(config.get(ConsensusKeys.HAND_OFF))
        .withHandOffMaxKeys(config.get(ConsensusKeys.HAND_OFF_MAX_KEYS));
  }
}
