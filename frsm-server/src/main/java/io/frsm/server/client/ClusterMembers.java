package io.frsm.server.client;

import io.frsm.cell.Key;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * What a node knows about the cluster's members, kept current by a ZooKeeper watch: the live
 * members, the last record seen of every member (a member that went down keeps its last address
 * until it registers again), and, once the cluster has formed, the ring over its {@link
 * ClusterShape} for routing.
 *
 * <p>Thread-safe: every view is an immutable snapshot swapped on change.
 */
public final class ClusterMembers {
  private volatile Map<Integer, NodeInfo> known = Map.of();
  private volatile Set<Integer> live = Set.of();
  private volatile Set<Integer> ready = Set.of();

  /** Per ready node, the ranges it does not compete for (its ready marker's data). */
  private volatile Map<Integer, Set<Integer>> unreachableRanges = Map.of();

  private volatile Ring ring;
  private volatile ClusterShape shape;
  private volatile IntUnaryOperator leaders = range -> -1;

  /** Whether the watches of the members and of the ready markers each reported once. */
  private volatile boolean membersRead;

  private volatile boolean readyRead;

  /** Starts watching {@code registry}; {@code onChange} runs after each update (watch thread). */
  public void watch(MembershipRegistry registry, Consumer<List<NodeInfo>> onChange) {
    registry.watch(
        members -> {
          update(members);
          membersRead = true;
          onChange.accept(members);
        });
  }

  /**
   * Starts watching the ready markers ({@link MembershipRegistry#markReady}); {@code onChange} runs
   * after each update (watch thread).
   */
  public void watchReady(MembershipRegistry registry, Runnable onChange) {
    registry.watchReady(
        nodes -> {
          unreachableRanges = Map.copyOf(nodes);
          ready = Set.copyOf(nodes.keySet());
          readyRead = true;
          onChange.run();
        });
  }

  /**
   * Whether both watches ({@link #watch}, {@link #watchReady}) reported at least once, so that
   * {@link #live()} and {@link #ready()} are ZooKeeper's, not the empty sets they start as. Until
   * then a node must not decide range leadership by them: with no ready marker read yet, a node
   * restarting into a formed cluster would see itself as the only ready replica of every range.
   */
  public boolean watchesReported() {
    return membersRead && readyRead;
  }

  /** Nodes marked ready (their core runs): only they take range leadership. */
  public Set<Integer> ready() {
    return ready;
  }

  /**
   * Per ready node, the ranges it does not compete for because it cannot reach a quorum of their
   * replicas (docs/PROTOCOL.md "Step-down and the quorum watch"); a node absent has none.
   */
  public Map<Integer, Set<Integer>> unreachableRanges() {
    return unreachableRanges;
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
    if (s != null && ring == null) {
      ring = s.ring(); // the shape never changes once formed, nor does its ring
    }
  }

  /** The ring of the formed cluster, or null before it formed. */
  public Ring ring() {
    return ring;
  }

  /**
   * Where each range's leader is believed to be: {@code leaders.applyAsInt(range)} is the node id
   * that last took the range's term, or -1 if unknown ({@link io.frsm.server.zk.RangeLeaders}).
   */
  public void leaders(IntUnaryOperator leaders) {
    this.leaders = leaders;
  }

  /**
   * The node that last took range {@code rangeIndex}'s term, or -1 if unknown; it may be down
   * (check {@link #live()}).
   */
  public int leaderOfRange(int rangeIndex) {
    return leaders.applyAsInt(rangeIndex);
  }

  /**
   * The live node believed to lead {@code key}'s range, or -1 if unknown, not live, or the cluster
   * has not formed.
   */
  public int liveLeaderOf(Key key) {
    Ring r = ring;
    if (r == null) {
      return -1;
    }
    int leader = leaders.applyAsInt(r.rangeIndexOf(key.token()));
    return leader >= 0 && live.contains(leader) ? leader : -1;
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

  /** The client addresses of the live members (whose connections are worth keeping). */
  public Set<InetSocketAddress> liveClientAddresses() {
    Set<InetSocketAddress> addresses = new HashSet<>();
    for (int id : live) {
      InetSocketAddress a = clientAddress(id);
      if (a != null) {
        addresses.add(a);
      }
    }
    return addresses;
  }

  /**
   * Where to send an operation on {@code key}, best first: the live node believed to lead its
   * range, then the key's live replicas in ring order (natural leader first; ready ones first),
   * then any other live member (which redirects). Empty if no member is live.
   */
  public List<Integer> route(Key key) {
    Set<Integer> up = live;
    LinkedHashSet<Integer> order = new LinkedHashSet<>();
    Ring r = ring;
    int leader = liveLeaderOf(key);
    if (leader >= 0) {
      order.add(leader);
    }
    if (r != null) {
      List<Integer> replicas = r.replicasFor(key.token());
      Set<Integer> serving = ready;
      for (int id : replicas) {
        if (up.contains(id) && serving.contains(id)) {
          order.add(id); // the replica that takes over a leaderless range
        }
      }
      for (int id : replicas) {
        if (up.contains(id)) {
          order.add(id);
        }
      }
    }
    ClusterShape s = shape;
    up.stream().filter(id -> s == null || s.contains(id)).sorted().forEach(order::add);
    return List.copyOf(order);
  }
}
