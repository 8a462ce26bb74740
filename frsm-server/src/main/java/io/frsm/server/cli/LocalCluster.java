package io.frsm.server.cli;

import io.frsm.api.FrsmClient;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.node.NaturalLeaders;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An embedded ZooKeeper plus nodes on loopback, each in its own directory under {@code baseDir}:
 * what {@code frsm local} and {@code frsm demo} run.
 */
final class LocalCluster implements AutoCloseable {
  static final String CLUSTER_ID = "local";
  static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path baseDir;
  private final EmbeddedZooKeeper zookeeper;
  private final FrsmNode[] nodes;

  private LocalCluster(Path baseDir, EmbeddedZooKeeper zookeeper, int size) {
    this.baseDir = baseDir;
    this.zookeeper = zookeeper;
    this.nodes = new FrsmNode[size];
  }

  static LocalCluster start(Path baseDir, int size) throws Exception {
    LocalCluster cluster =
        new LocalCluster(baseDir, EmbeddedZooKeeper.start(baseDir.resolve("zookeeper")), size);
    try {
      for (int i = 0; i < size; i++) {
        cluster.nodes[i] = cluster.newNode(i + 1);
        cluster.nodes[i].start();
      }
      for (FrsmNode n : cluster.nodes) {
        n.awaitReady(READY_TIMEOUT);
      }
      // The steady state (leases, leader-only reads) starts once the early nodes handed their
      // stand-in ranges back to the natural leaders.
      NaturalLeaders.await(List.of(cluster.nodes), READY_TIMEOUT);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private FrsmNode newNode(int nodeId) {
    Path dir = baseDir.resolve("node-" + nodeId);
    InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    return FrsmNode.builder()
        .nodeId(nodeId)
        .clusterId(CLUSTER_ID)
        .dataDirectory(dir.resolve("data"))
        .commitLogDirectories(List.of(dir.resolve("commitlog")))
        .peerAddress(any)
        .clientAddress(any)
        .zookeeper(zookeeper.connectString())
        // Short sessions: a killed node's ranges move within seconds (docs/OPERATIONS.md).
        .zookeeperSessionTimeout(Duration.ofSeconds(3))
        .initialNodes(nodes.length)
        .rack("rack" + nodeId)
        .build();
  }

  String zookeeperConnect() {
    return zookeeper.connectString();
  }

  List<FrsmNode> nodes() {
    List<FrsmNode> out = new ArrayList<>();
    for (FrsmNode n : nodes) {
      if (n != null) {
        out.add(n);
      }
    }
    return out;
  }

  /** A thin client of this cluster (through ZooKeeper, like a remote application). */
  FrsmClient thinClient() {
    return FrsmClient.builder().zookeeper(zookeeper.connectString()).clusterId(CLUSTER_ID).build();
  }

  /** Kills node {@code nodeId} as SIGKILL would: no drain, no flush, no deregistration. */
  void kill(int nodeId) {
    FrsmNode n = nodes[nodeId - 1];
    nodes[nodeId - 1] = null;
    if (n != null) {
      n.kill();
    }
  }

  /** Starts node {@code nodeId} again on its directories (it replays its commit log). */
  void restart(int nodeId) throws IOException {
    FrsmNode n = newNode(nodeId);
    n.start();
    n.awaitReady(READY_TIMEOUT);
    nodes[nodeId - 1] = n;
  }

  @Override
  public void close() {
    for (int i = nodes.length - 1; i >= 0; i--) {
      if (nodes[i] != null) {
        try {
          nodes[i].close();
        } catch (RuntimeException e) {
          System.err.println("node " + (i + 1) + " did not stop cleanly: " + e);
        }
      }
    }
    zookeeper.close();
  }
}
