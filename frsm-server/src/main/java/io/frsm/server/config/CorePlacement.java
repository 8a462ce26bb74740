package io.frsm.server.config;

import java.util.Locale;

/**
 * Where a node's consensus core shards run ({@code consensus.coreOnTransportLoop}): on threads of
 * their own, or on the node's transport event loops (shard s on loop s mod {@code
 * transport.threads}), where an input that arrives on the core's loop, and the sends and replies it
 * causes, cross no thread.
 *
 * <p>The loop pays only where every channel of the node shares the core's one loop — one event
 * loop, one shard — and the node has too few CPUs to keep the network and the core apart: measured
 * on 2 vCPUs with three nodes, 1.3-1.5x the throughput of in-process clients and 1.1x of thin ones;
 * with two loops per node, thin clients lost (docs/BENCHMARKS.md). {@link #AUTO} picks it exactly
 * there, so a small node gets the loop and a many-core node keeps its threaded pipeline.
 */
public enum CorePlacement {
  /** The default: the transport loop when the node runs one event loop and one core shard. */
  AUTO("auto"),
  /** Threads of their own ({@code false}). */
  OWN_THREADS("false"),
  /** The transport event loops ({@code true}). */
  TRANSPORT_LOOPS("true");

  private final String configName;

  CorePlacement(String configName) {
    this.configName = configName;
  }

  /** The config file's spelling: {@code auto}, {@code true} or {@code false}. */
  public String configName() {
    return configName;
  }

  /** {@code true}: the loops; {@code false}: threads of their own. */
  public static CorePlacement of(boolean onTransportLoops) {
    return onTransportLoops ? TRANSPORT_LOOPS : OWN_THREADS;
  }

  /**
   * Parses the config file's spelling, {@code auto}, {@code true} or {@code false} (any case); null
   * for anything else.
   */
  public static CorePlacement parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    for (CorePlacement p : values()) {
      if (p.configName.equals(s)) {
        return p;
      }
    }
    return null;
  }

  /** Whether a node with this many event loops and core shards runs its cores on the loops. */
  public boolean onTransportLoops(int transportThreads, int coreShards) {
    return switch (this) {
      case AUTO -> transportThreads == 1 && coreShards == 1;
      case OWN_THREADS -> false;
      case TRANSPORT_LOOPS -> true;
    };
  }
}
