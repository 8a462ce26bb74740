package io.frsm.server.config;

import java.time.Duration;

/**
 * The node's defaults, one place for both ways of setting a node up: the YAML file (an absent key)
 * and {@code FrsmNodeBuilder} (an option never set). docs/OPERATIONS.md and config/frsm.yaml list
 * the same values; {@code ConfigLoaderTest} and {@code FrsmNodeConfigTest} check they agree.
 */
public final class NodeDefaults {
  private NodeDefaults() {}

  public static final Duration ZOOKEEPER_SESSION_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);
  public static final int VNODES = 16;
  public static final Duration BOUNDED_DELAY = Duration.ofSeconds(5);
  public static final Duration CLOCK_SKEW_BOUND = Duration.ofMillis(250);
  public static final Duration HEDGE = Duration.ofMillis(20);
  public static final Duration ROUND_TIMEOUT = Duration.ofMillis(200);
  public static final Duration BACKOFF_MAX = Duration.ofMillis(50);
  public static final Duration TICK_INTERVAL = Duration.ofMillis(2);
  public static final Duration LEASE = Duration.ofSeconds(2);
  public static final int CLOCK_DRIFT_PPM = 1_000;
  public static final boolean LEADER_ONLY_READS = true;
  public static final long CLOCK_CACHE_BYTES = 64L * 1024 * 1024;

  /** {@code transport.threads}: 0 picks {@link #transportThreads(int)} of the machine's CPUs. */
  public static final int TRANSPORT_THREADS = 0;

  /**
   * The Netty event loops a node runs when {@code transport.threads} is 0: one on a machine with
   * two CPUs or fewer, where a second loop only adds thread hand-offs (with the core on the one
   * loop, see {@link CorePlacement}), else two.
   */
  public static int transportThreads(int availableProcessors) {
    return availableProcessors <= 2 ? 1 : 2;
  }

  /** {@code consensus.coreOnTransportLoop}: {@link CorePlacement#AUTO}. */
  public static final CorePlacement CORE_PLACEMENT = CorePlacement.AUTO;

  /** {@code consensus.coreThreads}: 0 picks {@link #coreThreads(int)} of the machine's CPUs. */
  public static final int CORE_THREADS = 0;

  /**
   * The core shards a node runs when {@code consensus.coreThreads} is 0: a quarter of its CPUs, at
   * least one — the rest serve the transport, the commit log, compaction and the caller threads.
   */
  public static int coreThreads(int availableProcessors) {
    return Math.max(
        1, Math.min(io.frsm.consensus.core.ShardRouting.MAX_SHARDS, availableProcessors / 4));
  }
}
