package io.frsm.server.zk;

import io.frsm.server.ring.NodeInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Cluster membership as ephemeral znodes: a node is a member while its ZooKeeper session lives.
 * Watches the member list and tells a listener the full live set on every change.
 */
public final class MembershipRegistry implements AutoCloseable {
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final CuratorCache cache;

  public MembershipRegistry(CuratorFramework zk, ZkLayout layout) throws Exception {
    this.zk = zk;
    this.layout = layout;
    zk.createContainers(layout.members());
    this.cache = CuratorCache.build(zk, layout.members());
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

  /** The members registered now, read from ZooKeeper. */
  public List<NodeInfo> members() throws Exception {
    List<NodeInfo> out = new ArrayList<>();
    for (String child : zk.getChildren().forPath(layout.members())) {
      try {
        byte[] data = zk.getData().forPath(layout.members() + "/" + child);
        out.add(decode(Integer.parseInt(child), data));
      } catch (KeeperException.NoNodeException gone) {
        // Left between the two reads.
      }
    }
    out.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
    return out;
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
  }
}
