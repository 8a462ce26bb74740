package io.frsm.server.config;

import io.frsm.consensus.core.ShardRouting;

/**
 * What a node runs when a thread count is left at 0 ({@link TransportKeys#THREADS}, {@link
 * ConsensusKeys#CORE_THREADS}): sized by the machine's CPUs when the node starts. The keys' own
 * defaults are in their declarations.
 */
public final class NodeDefaults {
  private NodeDefaults() {}

  /**
   * The Netty event loops a node runs when {@code transport.threads} is 0: one on a machine with
   * two CPUs or fewer, where a second loop only adds thread hand-offs (with the core on the one
   * loop, see {@link CorePlacement}), else two.
   */
  public static int transportThreads(int availableProcessors) {
    return availableProcessors <= 2 ? 1 : 2;
  }

  /**
   * The core shards a node runs when {@code consensus.coreThreads} is 0: a quarter of its CPUs, at
   * least one — the rest serve the transport, the commit log, compaction and the caller threads.
   */
  public static int coreThreads(int availableProcessors) {
    return Math.max(1, Math.min(ShardRouting.MAX_SHARDS, availableProcessors / 4));
  }
}
