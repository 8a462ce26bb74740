package io.frsm.server.zk;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * The replica set every key uses and the ring's vnode count, fixed when the cluster first forms and
 * kept in ZooKeeper ({@link ZkLayout#shape()}). Every node builds its core's replica set from it,
 * so two nodes can never form quorums over different sets (with n = 3, quorums of {1,2,3} and
 * {1,2,4} need not intersect). Clients read it to build the same ring.
 *
 * <p>Znode content: {@code v1|<id>,<id>,<id>|<vnodes>}.
 */
public record ClusterShape(List<Integer> replicas, int vnodes) {
  public ClusterShape {
    replicas = List.copyOf(replicas);
    if (replicas.isEmpty() || replicas.stream().distinct().count() != replicas.size()) {
      throw new IllegalArgumentException("replicas must be distinct and non-empty: " + replicas);
    }
    if (vnodes < 1) {
      throw new IllegalArgumentException("vnodes must be >= 1, was " + vnodes);
    }
  }

  /** The shape stored for the cluster, or null if it has not formed yet. */
  public static ClusterShape read(CuratorFramework zk, ZkLayout layout) throws Exception {
    try {
      return decode(zk.getData().forPath(layout.shape()));
    } catch (KeeperException.NoNodeException notFormed) {
      return null;
    }
  }

  /**
   * Stores {@code proposed} unless a shape is stored already; returns the one that holds (the first
   * writer wins).
   */
  public static ClusterShape createIfAbsent(
      CuratorFramework zk, ZkLayout layout, ClusterShape proposed) throws Exception {
    try {
      zk.create().creatingParentContainersIfNeeded().forPath(layout.shape(), proposed.encode());
      return proposed;
    } catch (KeeperException.NodeExistsException raced) {
      return read(zk, layout);
    }
  }

  byte[] encode() {
    StringBuilder b = new StringBuilder("v1|");
    for (int i = 0; i < replicas.size(); i++) {
      b.append(i == 0 ? "" : ",").append(replicas.get(i));
    }
    return b.append('|').append(vnodes).toString().getBytes(StandardCharsets.UTF_8);
  }

  static ClusterShape decode(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    String[] f = text.split("\\|", -1);
    if (f.length != 3 || !f[0].equals("v1")) {
      throw new IllegalArgumentException("malformed cluster shape \"" + text + "\"");
    }
    List<Integer> ids = new ArrayList<>();
    for (String id : f[1].split(",")) {
      ids.add(Integer.parseInt(id));
    }
    return new ClusterShape(ids, Integer.parseInt(f[2]));
  }
}
