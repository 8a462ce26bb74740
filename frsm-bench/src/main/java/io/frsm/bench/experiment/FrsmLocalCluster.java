package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.cell.Token;
import io.frsm.consensus.core.CoreStats;
import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.TransportKeys;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.node.FrsmNodeBuilder;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Three frsm nodes on loopback with an embedded ZooKeeper ({@link LocalCluster}, as {@code frsm
 * local} runs them: each node with its own data and commit log directory, fsync on, 3 s ZooKeeper
 * sessions), with the node settings an experiment varies: the frsm side of every experiment. Range
 * leadership and leases are on (the node's defaults): start-up returns once every range is led by
 * its natural leader.
 */
final class FrsmLocalCluster implements KvSystem {
  static final String CLUSTER_ID = "experiment";
  static final int NODES = 3;

  /** The nodes' ring (fixed, so clients route without asking ZooKeeper): one rack per node. */
  private static final int VNODES = RingKeys.VNODES.defaultValue();

  /**
   * What the experiments vary in the nodes.
   *
   * @param transportThreads Netty event loops per node (0: the node's default, by its CPUs)
   * @param leaderOnlyReads {@code FrsmNodeBuilder.leaderOnlyReads}
   * @param forcedColdCasShare {@code FrsmNodeBuilder.forcedColdCasShare}
   * @param coreThreads {@code FrsmNodeBuilder.coreThreads} (0: the node's default)
   * @param corePlacement {@code FrsmNodeBuilder.corePlacement}
   * @param groupCommitWindow {@code lsm.commitLogGroupCommitWindow}
   */
  record Settings(
      int transportThreads,
      boolean leaderOnlyReads,
      double forcedColdCasShare,
      int coreThreads,
      CorePlacement corePlacement,
      GroupCommitWindow groupCommitWindow) {
    /**
     * As a production node: the node's defaults for its event loops, core shards, where they run
     * and its group commit; leader-only reads; no forced prepares.
     */
    static final Settings DEFAULT =
        new Settings(
            TransportKeys.THREADS.defaultValue(),
            true,
            0,
            ConsensusKeys.CORE_THREADS.defaultValue(),
            ConsensusKeys.CORE_ON_TRANSPORT_LOOP.defaultValue(),
            CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW);

    Settings transportThreads(int threads) {
      return new Settings(
          threads,
          leaderOnlyReads,
          forcedColdCasShare,
          coreThreads,
          corePlacement,
          groupCommitWindow);
    }

    Settings leaderOnlyReads(boolean enabled) {
      return new Settings(
          transportThreads,
          enabled,
          forcedColdCasShare,
          coreThreads,
          corePlacement,
          groupCommitWindow);
    }

    Settings forcedColdCasShare(double share) {
      return new Settings(
          transportThreads, leaderOnlyReads, share, coreThreads, corePlacement, groupCommitWindow);
    }

    Settings coreThreads(int threads) {
      return new Settings(
          transportThreads,
          leaderOnlyReads,
          forcedColdCasShare,
          threads,
          corePlacement,
          groupCommitWindow);
    }

    Settings corePlacement(CorePlacement placement) {
      return new Settings(
          transportThreads,
          leaderOnlyReads,
          forcedColdCasShare,
          coreThreads,
          placement,
          groupCommitWindow);
    }

    Settings groupCommitWindow(GroupCommitWindow window) {
      return new Settings(
          transportThreads,
          leaderOnlyReads,
          forcedColdCasShare,
          coreThreads,
          corePlacement,
          window);
    }
  }

  /** How a client reaches the nodes. */
  enum Access {
    /**
     * In-process: each operation goes to the embedded client of the key's natural leader (no client
     * socket, like the cRSM baseline's client).
     */
    EMBEDDED_LEADER,
    /**
     * The remote client over TCP (frsm-client), started from the nodes' addresses, like a service.
     */
    THIN
  }

  private final LocalCluster cluster;
  private final Ring ring;

  private FrsmLocalCluster(LocalCluster cluster) {
    this.cluster = cluster;
    List<NodeInfo> members = new ArrayList<>();
    for (int id = 1; id <= NODES; id++) {
      members.add(new NodeInfo(id, "127.0.0.1", 0, 0, LocalCluster.rack(id)));
    }
    this.ring = Ring.of(1, members, VNODES, NODES);
  }

  /** Starts the cluster under {@code baseDir}; {@code transportThreads} Netty loops per node. */
  static FrsmLocalCluster start(Path baseDir, int transportThreads) throws Exception {
    return start(baseDir, Settings.DEFAULT.transportThreads(transportThreads));
  }

  /**
   * As {@link #start(Path, int)} with every node's range lease {@code L} ({@code consensus.lease})
   * set to {@code lease}, or the node default when null: what the recovery experiment's what-if
   * varies (a new leader of a dead node's range waits {@code L·(1+ρ)} before it writes).
   */
  static FrsmLocalCluster start(Path baseDir, int transportThreads, Duration lease)
      throws Exception {
    if (lease == null) {
      return start(baseDir, transportThreads);
    }
    Settings settings = Settings.DEFAULT.transportThreads(transportThreads);
    return new FrsmLocalCluster(
        LocalCluster.start(
            baseDir,
            CLUSTER_ID,
            NODES,
            node -> nodeSettings(node, settings).lease(lease),
            LocalCluster.Security.TLS));
  }

  /**
   * Starts the cluster under {@code baseDir} with {@code settings}. Measures the steady state:
   * every range led by its natural leader, whose lease makes its reads leader-only (the first write
   * of each range still waits out L·(1+ρ): warm-up).
   */
  static FrsmLocalCluster start(Path baseDir, Settings settings) throws Exception {
    return start(baseDir, settings, LocalCluster.Security.TLS);
  }

  /** As above, the nodes' and thin clients' connections secured as {@code security} says. */
  static FrsmLocalCluster start(Path baseDir, Settings settings, LocalCluster.Security security)
      throws Exception {
    return new FrsmLocalCluster(
        LocalCluster.start(
            baseDir, CLUSTER_ID, NODES, node -> nodeSettings(node, settings), security));
  }

  /** {@code settings} applied to one node's builder. */
  private static FrsmNodeBuilder nodeSettings(FrsmNodeBuilder node, Settings settings) {
    return node.vnodes(VNODES)
        .transportThreads(settings.transportThreads())
        .leaderOnlyReads(settings.leaderOnlyReads())
        .forcedColdCasShare(settings.forcedColdCasShare())
        .coreThreads(settings.coreThreads())
        .corePlacement(settings.corePlacement())
        .lsm(b -> b.commitLogGroupCommitWindow(settings.groupCommitWindow()));
  }

  @Override
  public String name() {
    return "frsm";
  }

  @Override
  public FrsmClient client() {
    return client(Access.EMBEDDED_LEADER, 0);
  }

  /**
   * A client of the given access kind. For {@link Access#EMBEDDED_LEADER}, {@code
   * nonLeaderFraction} of the calls go to a node other than the key's natural leader (chosen at
   * random), which makes that node prepare: the multi-phase share of the Figure 16 experiment.
   */
  FrsmClient client(Access access, double nonLeaderFraction) {
    if (access == Access.THIN) {
      return cluster.thinClient();
    }
    List<FrsmClient> perNode = new ArrayList<>();
    for (int id = 1; id <= NODES; id++) {
      FrsmNode n = cluster.node(id);
      perNode.add(n == null ? null : n.client());
    }
    return new RoutedClient(perNode, this::replicaOrder, nonLeaderFraction);
  }

  /** The key's replicas as node indexes (0-based), natural leader first, live nodes only. */
  private int[] replicaOrder(byte[] key) {
    List<Integer> replicas = ring.replicasFor(Token.of(key));
    int[] out = new int[replicas.size()];
    int n = 0;
    for (int id : replicas) {
      if (cluster.node(id) != null) {
        out[n++] = id - 1;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The node id (1-based) that is the natural leader of {@code key}. */
  int naturalLeader(byte[] key) {
    return ring.naturalLeaderFor(Token.of(key));
  }

  /** Kills node {@code nodeId} as SIGKILL would: no drain, no flush, no deregistration. */
  void kill(int nodeId) {
    cluster.kill(nodeId);
  }

  /** The sum of the live nodes' consensus counters (each read now). */
  CoreStats coreStats() {
    CoreStats sum = CoreStats.ZERO;
    for (FrsmNode n : cluster.nodes()) {
      sum = sum.plus(n.coreStats());
    }
    return sum;
  }

  /**
   * Commit-log group commits, summed over every stripe of the live nodes (from {@code
   * frsm.commitlog.batch.records}, {@code frsm.commitlog.group.window.records} and {@code
   * frsm.commitlog.group.window}).
   *
   * @param syncs group commits (one sync each)
   * @param records records they made durable
   * @param windows group commits that waited out a window
   * @param gathered records that joined during those windows
   * @param windowNanos time spent in those windows
   */
  record GroupCommits(long syncs, long records, long windows, long gathered, long windowNanos) {
    static final GroupCommits ZERO = new GroupCommits(0, 0, 0, 0, 0);

    GroupCommits minus(GroupCommits o) {
      return new GroupCommits(
          syncs - o.syncs,
          records - o.records,
          windows - o.windows,
          gathered - o.gathered,
          windowNanos - o.windowNanos);
    }
  }

  /**
   * What the live nodes counted: their consensus counters and their group commits.
   *
   * @param core {@link #coreStats()}
   * @param groupCommits {@link #groupCommits()}
   */
  record Counters(CoreStats core, GroupCommits groupCommits) {
    static final Counters ZERO = new Counters(CoreStats.ZERO, GroupCommits.ZERO);

    Counters minus(Counters o) {
      return new Counters(core.minus(o.core), groupCommits.minus(o.groupCommits));
    }
  }

  /** The live nodes' counters so far. */
  Counters counters() {
    return new Counters(coreStats(), groupCommits());
  }

  /**
   * Range lease renewals the live nodes made so far ({@code frsm.lease.renewals}: one per held
   * range per renewal batch; each node sends one ZooKeeper {@code multi} per batch, every L/4).
   */
  long leaseRenewals() {
    long sum = 0;
    for (FrsmNode n : cluster.nodes()) {
      for (var c : n.meterRegistry().find("frsm.lease.renewals").functionCounters()) {
        sum += Math.round(c.count());
      }
    }
    return sum;
  }

  /** The live nodes' group commits so far. */
  GroupCommits groupCommits() {
    long syncs = 0;
    long records = 0;
    long windows = 0;
    long gathered = 0;
    long windowNanos = 0;
    for (FrsmNode n : cluster.nodes()) {
      var registry = n.meterRegistry();
      for (var s : registry.find("frsm.commitlog.batch.records").summaries()) {
        syncs += s.count();
        records += Math.round(s.totalAmount());
      }
      for (var s : registry.find("frsm.commitlog.group.window.records").summaries()) {
        windows += s.count();
        gathered += Math.round(s.totalAmount());
      }
      for (var t : registry.find("frsm.commitlog.group.window").timers()) {
        windowNanos += Math.round(t.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS));
      }
    }
    return new GroupCommits(syncs, records, windows, gathered, windowNanos);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
