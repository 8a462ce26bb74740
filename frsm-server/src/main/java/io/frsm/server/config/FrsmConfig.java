package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A node's whole configuration, as read by {@link ConfigLoader} from {@code frsm.yaml} and {@code
 * FRSM_*} environment variables. Every key, its default and its unit: docs/OPERATIONS.md
 * "Configuration file". Immutable.
 *
 * @param initialNodes how many registered nodes form the cluster (the first ones to register)
 * @param boundedDelay the bounded delay {@code T}: no round for an operation starts later than its
 *     invocation time plus T (DESIGN.md "Operations")
 * @param lease the range lease {@code L}; renewed every L/4
 * @param clockDriftPpm the bound ρ on monotonic clock drift, in parts per million
 * @param leaderOnlyReads whether range leaders answer reads from their own store under the lease
 * @param metricsPort the Prometheus scrape port; 0 turns the endpoint off
 */
public record FrsmConfig(
    String clusterId,
    int initialNodes,
    int nodeId,
    String rack,
    InetSocketAddress peerAddress,
    InetSocketAddress clientAddress,
    String advertisedHost,
    String zookeeperConnect,
    Duration zookeeperSessionTimeout,
    int vnodes,
    int replicationFactor,
    Duration boundedDelay,
    Duration lease,
    int clockDriftPpm,
    boolean leaderOnlyReads,
    int metricsPort,
    LsmConfig lsm) {

  public Path dataDirectory() {
    return lsm.dataDirectory();
  }

  public List<Path> commitLogDirectories() {
    return lsm.commitLogDirectories();
  }
}
