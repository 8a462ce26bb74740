package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Embedded ZooKeeper plus three {@link FrsmNode}s on loopback with ephemeral ports and their own
 * directories under one temp directory; nodes can be crashed and restarted on the same directories.
 * Closes everything it started.
 */
final class TestCluster implements AutoCloseable {
  static final String CLUSTER_ID = "it-cluster";

  /**
   * T: longer than the lease wait L·(1+ρ) of a new range leader (L = 2 s), so an operation that
   * arrives while its range changes hands waits for the new leader instead of failing.
   */
  static final Duration BOUNDED_DELAY = Duration.ofSeconds(4);

  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(6);
  static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final EmbeddedZooKeeper zookeeper;
  private final FrsmNode[] nodes = new FrsmNode[3];
  private final List<FrsmClient> clients = new ArrayList<>();

  TestCluster(Path dir) throws Exception {
    this.dir = dir;
    this.zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
    try {
      for (int i = 0; i < 3; i++) {
        nodes[i] = newNode(i + 1);
        nodes[i].start();
      }
      for (FrsmNode n : nodes) {
        n.awaitReady(READY_TIMEOUT);
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  private FrsmNode newNode(int nodeId) {
    Path data = dir.resolve("node-" + nodeId);
    return FrsmNode.builder()
        .nodeId(nodeId)
        .clusterId(CLUSTER_ID)
        .dataDirectory(data.resolve("data"))
        .commitLogDirectories(List.of(data.resolve("log-a"), data.resolve("log-b")))
        .zookeeper(zookeeper.connectString())
        .zookeeperSessionTimeout(Duration.ofSeconds(3))
        .rack("rack-" + nodeId)
        .boundedDelay(BOUNDED_DELAY)
        .clockSkewBound(Duration.ofMillis(10))
        .drainTimeout(Duration.ofSeconds(5))
        .transportThreads(1)
        .lsm(b -> b.blockCacheSizeBytes(1 << 20).memtableFlushSizeBytes(256 * 1024))
        .build();
  }

  /** The node with {@code nodeId} (1-3). */
  FrsmNode node(int nodeId) {
    return nodes[nodeId - 1];
  }

  String zookeeperConnectString() {
    return zookeeper.connectString();
  }

  FrsmClient thinClient() {
    FrsmClient c =
        FrsmClient.builder()
            .zookeeper(zookeeper.connectString())
            .clusterId(CLUSTER_ID)
            .operationTimeout(CLIENT_TIMEOUT)
            .build();
    clients.add(c);
    return c;
  }

  /** Stops node {@code nodeId} as if its process died: no drain, no flush, no deregistration. */
  void crash(int nodeId) {
    nodes[nodeId - 1].kill();
  }

  /** Starts node {@code nodeId} again on its directories and waits until it serves. */
  FrsmNode restart(int nodeId) throws Exception {
    FrsmNode n = newNode(nodeId);
    nodes[nodeId - 1] = n;
    n.start();
    n.awaitReady(READY_TIMEOUT);
    return n;
  }

  @Override
  public void close() {
    for (FrsmClient c : clients) {
      c.close();
    }
    // In parallel: each drains for up to the drain timeout.
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (FrsmNode n : nodes) {
      if (n != null) {
        closing.add(CompletableFuture.runAsync(n::close));
      }
    }
    closing.forEach(CompletableFuture::join);
    if (zookeeper != null) {
      zookeeper.close();
    }
  }
}
