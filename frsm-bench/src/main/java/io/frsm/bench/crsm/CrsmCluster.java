package io.frsm.bench.crsm;

import io.frsm.api.FrsmClient;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.cell.Token;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The coarse-grained baseline as the paper evaluated it (NSDI '20 §4.3): 3 nodes, 12 shards, each
 * node the leader of 4, every node a replica of every shard, all in this process. Each node has its
 * own {@link LsmEngine} on disk (the shards' logs, with group commit) and one event-loop thread.
 * Nodes talk through an in-JVM bus (messages are handed over as objects: no serialization, no
 * sockets — cheaper than frsm's Netty transport; see docs/CRSM.md).
 *
 * <p>Keys map to shards by {@code Token.of(key) mod 12}; the client sends each command to the
 * shard's current leader.
 */
public final class CrsmCluster implements AutoCloseable {
  public static final int NODES = 3;
  public static final int SHARDS = 12;
  public static final long TICK_MILLIS = 10;
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private final List<LsmEngine> engines = new ArrayList<>();
  private final List<CrsmNode> nodes = new ArrayList<>();
  private final AtomicIntegerArray leaders = new AtomicIntegerArray(SHARDS);
  private final BatchMetrics metrics = new BatchMetrics();
  private final CrsmConfig config;

  private CrsmCluster(CrsmConfig config) {
    this.config = config;
    for (int s = 0; s < SHARDS; s++) {
      leaders.set(s, -1);
    }
  }

  /**
   * Opens one engine per node under {@code directory/node-<i>}, starts the nodes, and waits until
   * shard {@code s} is led by node {@code s mod 3}.
   */
  public static CrsmCluster start(Path directory, CrsmConfig config) throws IOException {
    if (config.nodeCount() != NODES) {
      throw new IllegalArgumentException("the cluster has " + NODES + " nodes");
    }
    CrsmCluster cluster = new CrsmCluster(config);
    try {
      for (int n = 0; n < NODES; n++) {
        LsmConfig lsm =
            LsmConfig.builder(directory.resolve("node-" + n))
                .blockCacheSizeBytes(8 * LsmConfig.MIB) // the log is written, never read back
                .build();
        cluster.engines.add(LsmEngine.open(lsm, NioFileSystem.INSTANCE, new SimpleMeterRegistry()));
      }
      for (int n = 0; n < NODES; n++) {
        cluster.nodes.add(new CrsmNode(n, cluster, cluster.engines.get(n), config, SHARDS));
      }
      cluster.nodes.forEach(CrsmNode::start);
      for (int s = 0; s < SHARDS; s++) {
        cluster.nodes.get(s % NODES).campaign(s);
      }
      cluster.awaitLeaders();
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private synchronized void awaitLeaders() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    for (int s = 0; s < SHARDS; s++) {
      while (leaders.get(s) != s % NODES) {
        long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
        if (leftMillis <= 0) {
          throw new IllegalStateException(
              "shard " + s + " elected no leader in " + STARTUP_TIMEOUT);
        }
        try {
          wait(leftMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for leaders", e);
        }
      }
    }
  }

  /** A client over this cluster (cheap; any number may be used at once). */
  public FrsmClient client() {
    return new CrsmClient(this);
  }

  public static int shardOf(byte[] key) {
    return (int) Math.floorMod(Token.of(key), (long) SHARDS);
  }

  public BatchMetrics metrics() {
    return metrics;
  }

  public CrsmConfig config() {
    return config;
  }

  /** The node leading {@code shard}, or -1 while none does. */
  int leaderOf(int shard) {
    return leaders.get(shard);
  }

  CrsmNode node(int nodeId) {
    return nodes.get(nodeId);
  }

  LsmEngine engine(int nodeId) {
    return engines.get(nodeId);
  }

  synchronized void leadershipChanged(int shard, int nodeId, boolean leading) {
    if (leading) {
      leaders.set(shard, nodeId);
    } else {
      leaders.compareAndSet(shard, nodeId, -1);
    }
    notifyAll();
  }

  /** Stops the nodes (operations in flight end with an unknown outcome), then the engines. */
  @Override
  public void close() {
    for (CrsmNode n : nodes) {
      n.close();
    }
    for (LsmEngine e : engines) {
      e.close();
    }
  }
}
