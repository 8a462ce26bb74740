package io.frsm.bench.crsm;

import io.frsm.api.FrsmClient;
import io.frsm.cell.Token;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.config.NodeDefaults;
import io.frsm.transport.FramedPeerTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The coarse-grained baseline as the paper evaluated it (NSDI '20 §4.3): 3 nodes, 12 shards, each
 * node the leader of 4, every node a replica of every shard, all in this process. Each node has its
 * own {@link LsmEngine} on disk (the shards' logs, with group commit and fsync, configured as
 * frsm's) and one event-loop thread. Nodes talk over the chosen {@link Network}: frsm's Netty peer
 * transport (each node its own, on a loopback ephemeral port, with its own event loops), or an
 * in-JVM bus (no serialization, no sockets; cheaper than any network). See docs/CRSM.md.
 *
 * <p>Keys map to shards by {@code Token.of(key) mod 12}; the client sends each command to the
 * shard's current leader (an in-process call: clients do not go through a network).
 */
public final class CrsmCluster implements AutoCloseable {
  public static final int NODES = 3;
  public static final int SHARDS = 12;
  public static final long TICK_MILLIS = 10;

  /**
   * Netty event-loop threads per node unless given: frsm's default for this machine ({@code
   * transport.threads} 0, {@link NodeDefaults#transportThreads}), so both systems run the same
   * number of loops.
   */
  public static int defaultTransportThreads() {
    return NodeDefaults.transportThreads(Runtime.getRuntime().availableProcessors());
  }

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
  private static final String CLUSTER_ID = "crsm-bench";

  private final List<LsmEngine> engines = new ArrayList<>();
  private final List<CrsmNode> nodes = new ArrayList<>();
  private final List<TransportEventLoops> loops = new ArrayList<>();
  private final List<FramedPeerTransport<ShardMessage>> transports = new ArrayList<>();
  private final Map<Integer, InetSocketAddress> peerAddresses = new ConcurrentHashMap<>();
  private final AtomicIntegerArray leaders = new AtomicIntegerArray(SHARDS);
  private final BatchMetrics metrics = new BatchMetrics();
  private final CrsmConfig config;
  private final Network network;

  private CrsmCluster(CrsmConfig config, Network network) {
    this.config = config;
    this.network = network;
    for (int s = 0; s < SHARDS; s++) {
      leaders.set(s, -1);
    }
  }

  /** {@link #start(Path, CrsmConfig, Network)} over the in-JVM bus. */
  public static CrsmCluster start(Path directory, CrsmConfig config) throws IOException {
    return start(directory, config, Network.IN_JVM);
  }

  /**
   * {@link #start(Path, CrsmConfig, Network, int)} with {@link #defaultTransportThreads()} Netty
   * event loops per node.
   */
  public static CrsmCluster start(Path directory, CrsmConfig config, Network network)
      throws IOException {
    return start(directory, config, network, defaultTransportThreads());
  }

  /**
   * Opens one engine per node under {@code directory/node-<i>}, connects the nodes over {@code
   * network}, starts them, and waits until shard {@code s} is led by node {@code s mod 3}.
   *
   * @param transportThreads Netty event-loop threads of each node (ignored for {@link
   *     Network#IN_JVM})
   */
  public static CrsmCluster start(
      Path directory, CrsmConfig config, Network network, int transportThreads) throws IOException {
    if (config.nodeCount() != NODES) {
      throw new IllegalArgumentException("the cluster has " + NODES + " nodes");
    }
    Objects.requireNonNull(network, "network");
    if (transportThreads < 1) {
      throw new IllegalArgumentException("transportThreads must be >= 1, was " + transportThreads);
    }
    CrsmCluster cluster = new CrsmCluster(config, network);
    try {
      for (int n = 0; n < NODES; n++) {
        LsmConfig lsm =
            LsmConfig.builder(directory.resolve("node-" + n))
                .blockCacheSizeBytes(8 * LsmConfig.MIB) // the log is written, never read back
                .build();
        cluster.engines.add(LsmEngine.open(lsm, NioFileSystem.INSTANCE, new SimpleMeterRegistry()));
      }
      for (int n = 0; n < NODES; n++) {
        CrsmNode.Outbox outbox =
            network == Network.NETTY
                ? cluster.startTransport(n, transportThreads)
                : cluster.inJvmOutbox(n);
        cluster.nodes.add(new CrsmNode(n, cluster, outbox, cluster.engines.get(n), config, SHARDS));
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

  /**
   * Node {@code nodeId}'s own event loops and transport; inbound messages go to its {@link
   * CrsmNode} (created right after, before any node can send). Returns the node's outbox.
   */
  private CrsmNode.Outbox startTransport(int nodeId, int threads) {
    TransportEventLoops nodeLoops = TransportEventLoops.create(threads, true);
    loops.add(nodeLoops);
    FramedPeerTransport<ShardMessage> transport =
        FramedPeerTransport.start(
            nodeId,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            peerAddresses::get,
            CrsmWireCodec.INSTANCE,
            (from, m) -> nodes.get(nodeId).deliver(m.shard(), from, m.message()),
            TransportConfig.builder(CLUSTER_ID).build(),
            nodeLoops);
    transports.add(transport);
    peerAddresses.put(nodeId, transport.localAddress());
    return (to, shard, message) -> transport.send(to, new ShardMessage(shard, message));
  }

  /** The in-JVM bus: node {@code from}'s messages go as objects into the destination's queue. */
  private CrsmNode.Outbox inJvmOutbox(int from) {
    return (to, shard, message) -> nodes.get(to).deliver(shard, from, message);
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

  public Network network() {
    return network;
  }

  /**
   * Messages the nodes' transports refused or discarded (backlog full, peer unreachable); 0 over
   * {@link Network#IN_JVM}. The protocol retransmits, but a steady rise means overload.
   */
  public long droppedMessages() {
    return transports.stream().mapToLong(FramedPeerTransport::droppedMessages).sum();
  }

  /** Node {@code nodeId}'s peer listening address ({@link Network#NETTY} only). */
  InetSocketAddress peerAddress(int nodeId) {
    if (network != Network.NETTY) {
      throw new IllegalStateException("the " + network + " cluster has no sockets");
    }
    return peerAddresses.get(nodeId);
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

  /**
   * Stops the nodes (operations in flight end with an unknown outcome), then the transports and
   * their event loops, then the engines.
   */
  @Override
  public void close() {
    for (CrsmNode n : nodes) {
      n.close();
    }
    for (FramedPeerTransport<ShardMessage> t : transports) {
      t.close();
    }
    for (TransportEventLoops l : loops) {
      l.close();
    }
    for (LsmEngine e : engines) {
      e.close();
    }
  }
}
