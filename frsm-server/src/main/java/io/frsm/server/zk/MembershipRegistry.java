package io.frsm.server.zk;

import io.frsm.server.ring.NodeInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
  private static final System.Logger LOG = System.getLogger(MembershipRegistry.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final CuratorCache cache;
  private final CuratorCache readyCache;

  /** Per znode name, the last refusal of its name or record that was logged. */
  private final Map<String, String> badZnodeLogged = new java.util.concurrent.ConcurrentHashMap<>();

  /** Per node, the last refusal of its ready marker's data that was logged. */
  private final Map<Integer, String> badMarkerLogged =
      new java.util.concurrent.ConcurrentHashMap<>();

  public MembershipRegistry(CuratorFramework zk, ZkLayout layout) throws Exception {
    this.zk = zk;
    this.layout = layout;
    try {
      zk.createContainers(layout.members());
      zk.createContainers(layout.ready());
    } catch (KeeperException.NoAuthException readOnly) {
      // A read-only identity (a client, the CLI) may not create them; a node will. Until then
      // there are no members and no ready markers to read.
    }
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

  /** The nodes marked ready now; a child not named by a node id is no marker (logged once). */
  public Set<Integer> readyNodes() throws Exception {
    Set<Integer> out = new HashSet<>();
    for (String child : childrenOf(layout.ready())) {
      try {
        out.add(nodeId(child));
      } catch (IllegalArgumentException bad) {
        refused("ready/" + child, bad);
      }
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

  /** How long a deregistration may wait for ZooKeeper: it is best effort (see below). */
  static final Duration DEREGISTER_WITHIN = Duration.ofSeconds(3);

  /**
   * Removes the member record, best effort and bounded by {@link #DEREGISTER_WITHIN}: the record is
   * ephemeral, so the session's end removes it anyway; deregistering only tells the others sooner.
   * With ZooKeeper out of reach it returns at once (a blocking delete retried until Curator gave up
   * held a node's stop for two minutes).
   */
  public void deregister(int nodeId) throws Exception {
    if (!zk.getZookeeperClient().isConnected()) {
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: ZooKeeper is out of reach; its member record goes with its session",
          nodeId);
      return;
    }
    CompletableFuture<Void> answered = new CompletableFuture<>();
    // NoNode (the session expired, or deregistered before) is as good as deleted.
    zk.delete()
        .inBackground((client, event) -> answered.complete(null))
        .forPath(layout.member(nodeId));
    try {
      answered.get(DEREGISTER_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException slow) {
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: no answer to the deregistration within {1}; the member record goes"
              + " with the session",
          nodeId,
          DEREGISTER_WITHIN);
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
    for (String child : childrenOf(layout.members())) {
      try {
        Stat stat = new Stat();
        byte[] data = zk.getData().storingStatIn(stat).forPath(layout.members() + "/" + child);
        NodeInfo member = decode(nodeId(child), data);
        order.add(new long[] {stat.getCzxid(), found.size()});
        found.add(member);
      } catch (KeeperException.NoNodeException gone) {
        // Left between the two reads.
      } catch (IllegalArgumentException bad) {
        // A forged or damaged record must not hide the other members: it is no member.
        refused("members/" + child, bad);
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

  /** The children of a container that may not exist (no node created it yet, or it emptied). */
  private List<String> childrenOf(String path) throws Exception {
    try {
      return zk.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException none) {
      return List.of();
    }
  }

  /** Logs a refused znode once per znode and message: watches fire on every change. */
  private void refused(String znode, IllegalArgumentException why) {
    if (!why.getMessage().equals(badZnodeLogged.put(znode, why.getMessage()))) {
      System.getLogger(MembershipRegistry.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "ZooKeeper znode {0}/{1} is ignored: {2}",
              layout.root(),
              znode,
              why.getMessage());
    }
  }

  /** A member's or ready marker's znode name: a node id in decimal. */
  static int nodeId(String child) {
    if (!child.matches("[0-9]{1,9}")) {
      throw new IllegalArgumentException("not a node id: " + abbreviated(child));
    }
    return Integer.parseInt(child);
  }

  static byte[] encode(NodeInfo n) {
    return (n.host() + "|" + n.peerPort() + "|" + n.clientPort() + "|" + n.rack())
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A member record is {@code host|peerPort|clientPort|rack}: a few hundred bytes at most. */
  static final int MAX_RECORD_BYTES = 1024;

  /**
   * Node {@code nodeId}'s record.
   *
   * @throws IllegalArgumentException if {@code data} is no record a node writes: oversized, not
   *     four fields, a host that is no host name or address, a port out of [0, 65535] or a rack
   *     {@link ClusterShape#checkRack} refuses
   */
  static NodeInfo decode(int nodeId, byte[] data) {
    if (data == null || data.length > MAX_RECORD_BYTES) {
      throw new IllegalArgumentException(
          "member record of node "
              + nodeId
              + (data == null ? " has no data" : " is " + data.length + " bytes, over 1024"));
    }
    String[] f = new String(data, StandardCharsets.UTF_8).split("\\|", -1);
    if (f.length != 4) {
      throw new IllegalArgumentException("malformed member record for node " + nodeId);
    }
    // Host names and IPv4/IPv6 literals (a zone after %): what peers and clients will dial.
    if (!f[0].matches("[A-Za-z0-9._:%-]{0,253}")) {
      throw new IllegalArgumentException(
          "member record of node " + nodeId + ": bad host " + abbreviated(f[0]));
    }
    try {
      return new NodeInfo(nodeId, f[0], port(f[1]), port(f[2]), ClusterShape.checkRack(f[3]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "member record of node " + nodeId + ": " + e.getMessage(), e);
    }
  }

  private static int port(String field) {
    if (!field.matches("[0-9]{1,5}")) {
      throw new IllegalArgumentException("bad port " + abbreviated(field));
    }
    return Integer.parseInt(field);
  }

  private static String abbreviated(String s) {
    return s.length() <= 40 ? "\"" + s + "\"" : "\"" + s.substring(0, 40) + "...\"";
  }

  @Override
  public void close() {
    cache.close();
    readyCache.close();
  }
}
