package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import io.frsm.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A node's whole configuration, as read by {@link ConfigLoader} from {@code frsm.yaml} and {@code
 * FRSM_*} environment variables; {@code FrsmNodeBuilder.config} turns it into a node. Every key,
 * its default and its unit: docs/OPERATIONS.md "Configuration file". Immutable; the loader checked
 * every value and the rules between them.
 *
 * @param initialNodes how many registered nodes form the cluster (the first ones to register); at
 *     least {@code replicationFactor}
 * @param drainTimeout how long a graceful stop waits for running operations
 * @param replicationFactor replicas per range, fixed when the cluster forms
 * @param boundedDelay the bounded delay {@code T}: no round for an operation starts later than its
 *     invocation time plus T (DESIGN.md "Operations")
 * @param clockSkewBound ε, the wall-clock skew bound between nodes; a fence after a create whose
 *     outcome is unknown waits {@code T + 2ε}
 * @param hedge after this long without a quorum a round is widened to every replica
 * @param roundTimeout after this long without a quorum a round has failed (above {@code hedge})
 * @param backoffMax a failed round waits a random time below this before it is retried
 * @param tickInterval how often the core checks its timers (at most {@code hedge})
 * @param lease the range lease {@code L}; renewed every L/4
 * @param clockDriftPpm the bound ρ on monotonic clock drift, in parts per million
 * @param leaderOnlyReads whether range leaders answer reads from their own store under the lease
 * @param coreThreads consensus core shards, each a thread owning every n-th range; 0 picks a
 *     quarter of the CPUs (docs/PROTOCOL.md "Core shards")
 * @param corePlacement whether the core shards run on the transport event loops (shard s on loop s
 *     mod threads) instead of threads of their own; {@link CorePlacement#AUTO} picks the loop on a
 *     node with one event loop and one shard
 * @param clockCacheBytes the bound of the clock cache over the LSM
 * @param transportThreads Netty event-loop threads (peer and client protocol share them); 0 picks
 *     one on a machine with 2 CPUs or fewer, else two
 * @param transport frame limit, write-buffer water marks, per-connection queue bound, connect
 *     timeout and reconnect back-off of both protocols
 * @param metricsPort the Prometheus scrape port; 0 turns the endpoint off (the server command runs
 *     the endpoint, not the node)
 */
public record FrsmConfig(
    String clusterId,
    int initialNodes,
    int nodeId,
    String rack,
    InetSocketAddress peerAddress,
    InetSocketAddress clientAddress,
    String advertisedHost,
    Duration drainTimeout,
    String zookeeperConnect,
    Duration zookeeperSessionTimeout,
    int vnodes,
    int replicationFactor,
    Duration boundedDelay,
    Duration clockSkewBound,
    Duration hedge,
    Duration roundTimeout,
    Duration backoffMax,
    Duration tickInterval,
    Duration lease,
    int clockDriftPpm,
    boolean leaderOnlyReads,
    int coreThreads,
    CorePlacement corePlacement,
    long clockCacheBytes,
    int transportThreads,
    TransportConfig transport,
    int metricsPort,
    LsmConfig lsm) {

  /** Replicas per range unless configured otherwise. */
  public static final int DEFAULT_REPLICATION_FACTOR = 3;

  /**
   * The largest replication factor accepted: every round of a range goes to up to this many nodes,
   * and larger replica sets have never been run.
   */
  public static final int MAX_REPLICATION_FACTOR = 9;

  public Path dataDirectory() {
    return lsm.dataDirectory();
  }

  public List<Path> commitLogDirectories() {
    return lsm.commitLogDirectories();
  }
}
