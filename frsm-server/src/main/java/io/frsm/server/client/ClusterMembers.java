package io.frsm.server.client;

import io.frsm.lsm.cell.Key;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What a node or a thin client knows about the cluster's members, kept current by a ZooKeeper
 * watch: the live members, the last record seen of every member (a member that went down keeps its
 * last address until it registers again), and, once the cluster has formed, the ring over its
 * {@link ClusterShape} for routing.
 *
 * <p>Thread-safe: every view is an immutable snapshot swapped on change.
 */
public final class ClusterMembers {
  private volatile Map<Integer, NodeInfo> known = Map.of();
  private volatile Set<Integer> live = Set.of();
  private volatile Ring ring;
  private volatile ClusterShape shape;
  private long ringVersion;

  /** Starts watching {@code registry}; {@code onChange} runs after each update (watch thread). */
  public void watch(MembershipRegistry registry, Consumer<List<NodeInfo>> onChange) {
    registry.watch(
        members -> {
          update(members);
          onChange.accept(members);
        });
  }

  /** Applies a full live member list. */
  public synchronized void update(List<NodeInfo> members) {
    Map<Integer, NodeInfo> next = new HashMap<>(known);
    Set<Integer> nowLive = new HashSet<>();
    for (NodeInfo n : members) {
      next.put(n.nodeId(), n);
      nowLive.add(n.nodeId());
    }
    known = Map.copyOf(next);
    live = Set.copyOf(nowLive);
    rebuildRing();
  }

  /** The cluster formed with {@code formed}: routing follows its ring from now on. */
  public synchronized void shape(ClusterShape formed) {
    this.shape = formed;
    rebuildRing();
  }

  public ClusterShape shape() {
    return shape;
  }

  private void rebuildRing() {
    ClusterShape s = shape;
    if (s == null) {
      return;
    }
    List<NodeInfo> nodes = new ArrayList<>();
    for (int id : s.replicas()) {
      // A member not seen yet still owns its vnodes; with one replica set for every key its rack
      // cannot move the natural leader (the first replica is the range owner).
      nodes.add(known.getOrDefault(id, new NodeInfo(id, "", 0, 0, "")));
    }
    ring = Ring.of(++ringVersion, nodes, s.vnodes(), s.replicas().size());
  }

  public Set<Integer> live() {
    return live;
  }

  public Map<Integer, NodeInfo> known() {
    return known;
  }

  /** The last known peer address of {@code nodeId}, or null if it never registered. */
  public InetSocketAddress peerAddress(int nodeId) {
    NodeInfo n = known.get(nodeId);
    return n == null ? null : new InetSocketAddress(n.host(), n.peerPort());
  }

  /** The last known client address of {@code nodeId}, or null if it never registered. */
  public InetSocketAddress clientAddress(int nodeId) {
    NodeInfo n = known.get(nodeId);
    return n == null ? null : new InetSocketAddress(n.host(), n.clientPort());
  }

  /**
   * Where to send an operation on {@code key}, best first: the key's live replicas in ring order
   * (natural leader first), then any other live member. Empty if no member is live.
   */
  public List<Integer> route(Key key) {
    Set<Integer> up = live;
    LinkedHashSet<Integer> order = new LinkedHashSet<>();
    Ring r = ring;
    if (r != null) {
      for (int id : r.replicasFor(key.token())) {
        if (up.contains(id)) {
          order.add(id);
        }
      }
    }
    up.stream().sorted().forEach(order::add);
    return List.copyOf(order);
  }
}
