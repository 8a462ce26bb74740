package io.frsm.server.zk;

import io.frsm.server.ring.NodeInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
   * leadership. Ephemeral, like the registration; idempotent within one session.
   */
  public void markReady(int nodeId) throws Exception {
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .withMode(CreateMode.EPHEMERAL)
          .forPath(layout.ready(nodeId));
    } catch (KeeperException.NodeExistsException e) {
      Stat stat = zk.checkExists().forPath(layout.ready(nodeId));
      long session = zk.getZookeeperClient().getZooKeeper().getSessionId();
      if (stat != null && stat.getEphemeralOwner() != session) {
        throw new IllegalStateException(
            "node id " + nodeId + " is marked ready by another live session", e);
      }
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

  /** Calls {@code onChange} with the ready set after every change (and once at start). */
  public void watchReady(Consumer<Set<Integer>> onChange) {
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
                        onChange.accept(readyNodes());
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
