package io.frsm.server.zk;

import io.frsm.server.ring.NodeInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Cluster membership as ephemeral znodes: a node is a member while its ZooKeeper session lives.
 * Watches the member list and tells a listener the full live set on every change.
 */
public final class MembershipRegistry implements AutoCloseable {
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final CuratorCache cache;
  private final CuratorCache readyCache;

  /** Per node, the last refusal of its ready marker's data that was logged. */
  private final Map<Integer, String> badMarkerLogged =
      new java.util.concurrent.ConcurrentHashMap<>();

  public MembershipRegistry(CuratorFramework zk, ZkLayout layout) throws Exception {
    this.zk = zk;
    this.layout = layout;
    zk.createContainers(layout.members());
    zk.createContainers(layout.ready());
    this.cache = CuratorCache.build(zk, layout.members());
    this.readyCache = CuratorCache.build(zk, layout.ready());
  }

  /**
   * Marks {@code nodeId} ready: its commit log is replayed and its core runs, so it may take range
   * leadership, but for the ranges in {@code unreachableRanges} ({@link ReadyMarker}). Ephemeral,
   * like the registration; idempotent within one session (an existing marker gets the data).
   */
  public void markReady(int nodeId, Set<Integer> unreachableRanges) throws Exception {
    byte[] data = ReadyMarker.encode(unreachableRanges);
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .withMode(CreateMode.EPHEMERAL)
          .forPath(layout.ready(nodeId), data);
    } catch (KeeperException.NodeExistsException e) {
      Stat stat = zk.checkExists().forPath(layout.ready(nodeId));
      long session = zk.getZookeeperClient().getZooKeeper().getSessionId();
      if (stat != null && stat.getEphemeralOwner() != session) {
        throw new IllegalStateException(
            "node id " + nodeId + " is marked ready by another live session", e);
      }
      markUnreachable(nodeId, unreachableRanges);
    }
  }

  /** {@link #markReady} with no unreachable range. */
  public void markReady(int nodeId) throws Exception {
    markReady(nodeId, Set.of());
  }

  /**
   * Writes the ranges {@code nodeId} does not compete for into its ready marker. False if it has no
   * marker (not ready, or its session expired: marking it ready again writes them).
   */
  public boolean markUnreachable(int nodeId, Set<Integer> unreachableRanges) throws Exception {
    try {
      zk.setData().forPath(layout.ready(nodeId), ReadyMarker.encode(unreachableRanges));
      return true;
    } catch (KeeperException.NoNodeException notReady) {
      return false;
    }
  }

  /** The nodes marked ready now. */
  public Set<Integer> readyNodes() throws Exception {
    Set<Integer> out = new HashSet<>();
    for (String child : zk.getChildren().forPath(layout.ready())) {
      out.add(Integer.parseInt(child));
    }
    return out;
  }

  /**
   * Calls {@code onChange} after every change of the ready markers (and once at start) with each
   * ready node and the ranges its marker says it does not compete for ({@link ReadyMarker}; a
   * marker whose data does not parse counts as none, logged).
   */
  public void watchReady(Consumer<Map<Integer, Set<Integer>>> onChange) {
    readyCache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll(
                    (type, oldData, data) -> {
                      if (zk.getState() != CuratorFrameworkState.STARTED) {
                        return;
                      }
                      try {
                        onChange.accept(readyWithUnreachableRanges());
                      } catch (Exception e) {
                        if (zk.getState() != CuratorFrameworkState.STARTED) {
                          return;
                        }
                        System.getLogger(MembershipRegistry.class.getName())
                            .log(System.Logger.Level.WARNING, "could not read ready nodes", e);
                      }
                    })
                .build());
    readyCache.start();
  }

  /**
   * The ready nodes read from ZooKeeper (a full set, never a cache still filling), each with the
   * unreachable ranges of its marker's data as the cache holds it (changes of the data come as
   * events of their own).
   */
  private Map<Integer, Set<Integer>> readyWithUnreachableRanges() throws Exception {
    Map<Integer, Set<Integer>> out = new HashMap<>();
    for (int id : readyNodes()) {
      Set<Integer> unreachable = Set.of();
      var cached = readyCache.get(layout.ready(id));
      if (cached.isPresent()) {
        try {
          unreachable = ReadyMarker.decode(cached.get().getData());
        } catch (IllegalArgumentException bad) {
          // Once per node and message, not on every event: the watch fires on every change.
          if (!bad.getMessage().equals(badMarkerLogged.put(id, bad.getMessage()))) {
            System.getLogger(MembershipRegistry.class.getName())
                .log(
                    System.Logger.Level.WARNING,
                    "ready marker of node {0}: its unreachable ranges are ignored: {1}",
                    id,
                    bad.getMessage());
          }
        }
      }
      out.put(id, unreachable);
    }
    return out;
  }

  /**
   * Registers this node. Fails if a live session already registered the same node id (two processes
   * with one id would share ballots).
   */
  public void register(NodeInfo self) throws Exception {
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .withMode(CreateMode.EPHEMERAL)
          .forPath(layout.member(self.nodeId()), encode(self));
    } catch (KeeperException.NodeExistsException e) {
      throw new IllegalStateException(
          "node id " + self.nodeId() + " is already registered by a live process", e);
    }
  }

  public void deregister(int nodeId) throws Exception {
    try {
      zk.delete().forPath(layout.member(nodeId));
    } catch (KeeperException.NoNodeException alreadyGone) {
      // Session expired or deregistered before: nothing to do.
    }
  }

  /** The members registered now, read from ZooKeeper, in node id order. */
  public List<NodeInfo> members() throws Exception {
    List<NodeInfo> out = membersByRegistration();
    out.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
    return out;
  }

  /**
   * The members registered now, in the order their current registrations were made (ZooKeeper's
   * creation order, the same on every reader): a cluster forms from the first ones.
   */
  public List<NodeInfo> membersByRegistration() throws Exception {
    List<long[]> order = new ArrayList<>();
    List<NodeInfo> found = new ArrayList<>();
    for (String child : zk.getChildren().forPath(layout.members())) {
      try {
        Stat stat = new Stat();
        byte[] data = zk.getData().storingStatIn(stat).forPath(layout.members() + "/" + child);
        order.add(new long[] {stat.getCzxid(), found.size()});
        found.add(decode(Integer.parseInt(child), data));
      } catch (KeeperException.NoNodeException gone) {
        // Left between the two reads.
      }
    }
    order.sort((a, b) -> Long.compare(a[0], b[0]));
    List<NodeInfo> out = new ArrayList<>(found.size());
    for (long[] o : order) {
      out.add(found.get((int) o[1]));
    }
    return out;
  }

  /**
   * Registers {@code self} again after a ZooKeeper session ended (its ephemeral record went with
   * the session); a no-op when this session's record is still there.
   *
   * @throws IllegalStateException if another live session holds the node id
   */
  public void reregister(NodeInfo self) throws Exception {
    Stat stat = zk.checkExists().forPath(layout.member(self.nodeId()));
    long session = zk.getZookeeperClient().getZooKeeper().getSessionId();
    if (stat != null && stat.getEphemeralOwner() == session) {
      return;
    }
    register(self);
  }

  /** Calls {@code onChange} with the live member set after every change (and once at start). */
  public void watch(Consumer<List<NodeInfo>> onChange) {
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll(
                    (type, oldData, data) -> {
                      if (zk.getState() != CuratorFrameworkState.STARTED) {
                        return; // closing: the cache reports its own teardown
                      }
                      try {
                        onChange.accept(members());
                      } catch (Exception e) {
                        if (zk.getState() != CuratorFrameworkState.STARTED) {
                          return; // closed while reading
                        }
                        System.getLogger(MembershipRegistry.class.getName())
                            .log(System.Logger.Level.WARNING, "could not read members", e);
                      }
                    })
                .build());
    cache.start();
  }

  static byte[] encode(NodeInfo n) {
    return (n.host() + "|" + n.peerPort() + "|" + n.clientPort() + "|" + n.rack())
        .getBytes(StandardCharsets.UTF_8);
  }

  static NodeInfo decode(int nodeId, byte[] data) {
    String[] f = new String(data, StandardCharsets.UTF_8).split("\\|", -1);
    if (f.length != 4) {
      throw new IllegalArgumentException("malformed member record for node " + nodeId);
    }
    return new NodeInfo(nodeId, f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3]);
  }

  @Override
  public void close() {
    cache.close();
    readyCache.close();
  }
}
