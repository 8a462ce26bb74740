package io.frsm.server.config;

import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ZkLayout;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code cluster} and {@code node} sections: who the node is and where it lives.
 */
public final class NodeKeys {
  private NodeKeys() {}

  public static final ConfigKey<String> CLUSTER_ID =
      ConfigKey.of("cluster.id", ValueType.TEXT, "frsm")
          .check(ZkLayout::new)
          .option("clusterId")
          .doc("1-64 of [A-Za-z0-9_.-]; every node and client of the cluster and every frame");

  /** At most this many initial nodes; at least the replication factor (a rule between keys). */
  public static final int MAX_INITIAL_NODES = 10_000;

  public static final ConfigKey<Integer> INITIAL_NODES =
      ConfigKey.of("cluster.initialNodes", ValueType.INTEGER, 3)
          .range(1, MAX_INITIAL_NODES)
          .doc("the first this many registered nodes form the cluster (>= ring.replicationFactor)");

  public static final ConfigKey<Boolean> JOIN =
      ConfigKey.of("cluster.join", ValueType.BOOLEAN, false)
          .option("join")
          .doc(
              "a node outside the formed cluster registers and waits to be added (frsm admin"
                  + " add-node, or as a replacement); false: such a node is refused");

  public static final ConfigKey<Integer> ID =
      ConfigKey.of("node.id", ValueType.INTEGER, null)
          .atLeast(0)
          .option("nodeId")
          .doc("unique in the cluster and stable across restarts: part of every ballot");

  public static final ConfigKey<String> RACK =
      ConfigKey.of("node.rack", ValueType.TEXT, "default")
          .check(ClusterShape::checkRack)
          .doc("the failure domain replicas are spread over");

  public static final ConfigKey<Path> DATA_DIRECTORY =
      ConfigKey.of("node.dataDirectory", ValueType.PATH, null)
          .doc("SSTables, manifest and the boot counter");

  public static final ConfigKey<List<Path>> COMMIT_LOG_DIRECTORIES =
      ConfigKey.of("node.commitLogDirectories", ValueType.PATHS, (List<Path>) null)
          .derivedByDefault("<data>/commitlog")
          .check(
              dirs -> {
                if (dirs.isEmpty()) {
                  throw new IllegalArgumentException("needs at least one directory");
                }
              })
          .doc("one directory per commit-log stripe; one per device");

  // The listen addresses have no default: a node never listens on every interface (0.0.0.0)
  // unless its config says so. The embedded builder sets loopback (FrsmNodeBuilder).
  public static final ConfigKey<InetSocketAddress> PEER_ADDRESS =
      ConfigKey.of("node.peerAddress", ValueType.ADDRESS, (InetSocketAddress) null)
          .doc(
              "where peers connect: the interface and port to listen on (0.0.0.0:7400 for every"
                  + " interface, only if you mean it)");

  public static final ConfigKey<InetSocketAddress> CLIENT_ADDRESS =
      ConfigKey.of("node.clientAddress", ValueType.ADDRESS, (InetSocketAddress) null)
          .doc(
              "where clients connect: the interface and port to listen on (0.0.0.0:7500 for"
                  + " every interface, only if you mean it)");

  public static final ConfigKey<String> ADVERTISED_HOST =
      ConfigKey.of("node.advertisedHost", ValueType.TEXT, (String) null)
          .derivedByDefault("the host name")
          .doc("the host other nodes and clients dial");

  public static final ConfigKey<Duration> DRAIN_TIMEOUT =
      ConfigKey.of("node.drainTimeout", ValueType.DURATION, Duration.ofSeconds(10))
          .range(Duration.ZERO, Timings.MAX)
          .doc("a graceful stop waits this long for running operations");

  /**
   * docs/OPERATIONS.md "Membership changes": how long one wait of a change this node orchestrates
   * may go without progress before the run gives up and is tried again.
   */
  public static final ConfigKey<Duration> MEMBERSHIP_STEP_TIMEOUT =
      ConfigKey.of("node.membershipStepTimeout", ValueType.DURATION, Duration.ofMinutes(2))
          .range(Duration.ofSeconds(1), Duration.ofDays(1))
          .doc(
              "how long one wait of a membership change this node orchestrates (installations,"
                  + " copies, settles) may go without progress (a node installed, a copy done, a"
                  + " range settled) before the run gives up and tries again");

  /**
   * docs/OPERATIONS.md "Keeping the foreground served during a change": how many of its changed
   * ranges each node settles per promotion step; the ranges of a step need RF+1 acknowledgements
   * while it settles, the others keep RF.
   */
  public static final ConfigKey<Integer> MEMBERSHIP_STEP_RANGES_PER_NODE =
      ConfigKey.of("node.membershipStepRangesPerNode", ValueType.INTEGER, 1)
          .range(0, 8192)
          .doc(
              "how many changed ranges per settling node one promotion step of an add or a"
                  + " decommission requested at this node takes (RF+1 voters while they settle); 0:"
                  + " every range in one step (fewest ring versions, most foreground cost); a"
                  + " replace always promotes every range at once");

  /** docs/OPERATIONS.md "Disk full on the data directory". */
  public static final ConfigKey<Long> MIN_FREE_DISK_BYTES =
      ConfigKey.of("node.minFreeDiskBytes", ValueType.BYTES, 256L * 1024 * 1024)
          .range(0L, Long.MAX_VALUE)
          .doc("below this much usable space on a storage directory, the node refuses writes");

  public static final ConfigKey<Double> MIN_FREE_DISK_FRACTION =
      ConfigKey.of("node.minFreeDiskFraction", ValueType.DECIMAL, 0.01)
          .range(0.0, 0.5)
          .doc("below this share of the file system usable, the node refuses writes");

  public static final ConfigKey<Duration> DISK_SPACE_CHECK_INTERVAL =
      ConfigKey.of("node.diskSpaceCheckInterval", ValueType.DURATION, Duration.ofSeconds(1))
          .range(Duration.ofMillis(10), Duration.ofMinutes(1))
          .doc("how often the free space of the storage directories is read");

  static final List<ConfigKey<?>> ALL =
      List.of(
          CLUSTER_ID,
          INITIAL_NODES,
          JOIN,
          ID,
          RACK,
          DATA_DIRECTORY,
          COMMIT_LOG_DIRECTORIES,
          PEER_ADDRESS,
          CLIENT_ADDRESS,
          ADVERTISED_HOST,
          DRAIN_TIMEOUT,
          MEMBERSHIP_STEP_TIMEOUT,
          MEMBERSHIP_STEP_RANGES_PER_NODE,
          MIN_FREE_DISK_BYTES,
          MIN_FREE_DISK_FRACTION,
          DISK_SPACE_CHECK_INTERVAL);
}
