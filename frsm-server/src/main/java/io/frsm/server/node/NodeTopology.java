package io.frsm.server.node;

import io.frsm.client.transport.TopologySnapshot;
import io.frsm.consensus.core.Placement;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.transport.TopologyFeed;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this node tells clients' topology watches (docs/formats/wire.md "Topology"): the members it
 * knows with their client addresses and liveness, the ring of the formed cluster with each range's
 * replicas, the node named in ZooKeeper as each range's leader while that node is live, and the
 * cluster's {@code T + 2ε}. Built from {@link ClusterMembers} once per change: the node calls
 * {@link #changed()} after every membership change, every change of a range's named leader and once
 * the cluster formed, and {@link #current()} builds the view again only after one.
 *
 * <p>The view is advisory (routing only): a client that follows a stale one reaches a node that
 * redirects, so nothing here needs to be atomic across its parts.
 *
 * <p>Member records come from ZooKeeper, which this node does not trust blindly: a member whose
 * host or client port the client protocol cannot carry is left out, and so are its replica slots.
 * If that leaves a range without any replica, the view carries no ring at all (clients then send to
 * any member, which redirects) rather than a ring that names nobody.
 *
 * <p>Thread-safe: {@link #current()} reads immutable snapshots and never blocks; listeners run on
 * the thread that reported the change and must not block either.
 */
final class NodeTopology implements TopologyFeed {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  private final ClusterMembers members;
  private final AtomicLong sequence = new AtomicLong();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  /** Bumped by {@link #changed()} before the watches hear of it. */
  private final AtomicLong generation = new AtomicLong();

  /**
   * The view last built and the generation read before building it: every watch of this node asks
   * for the view after each change, and with many clients watching it is built once per change, not
   * once per watch. A view cached under generation g reflects every change up to g, as g is read
   * before the state; a change during the build bumps the generation, so it is built again.
   */
  private volatile Built last;

  private record Built(long generation, TopologySnapshot view) {}

  NodeTopology(ClusterMembers members) {
    this.members = members;
  }

  /**
   * The ring version this node's cores run (null until the first is installed): its voters, in
   * preference order, are the replicas clients are told, and its number the view's ring version.
   */
  private volatile Placement installed;

  /** This node installed {@code placement}: views carry its voters from now on. Any thread. */
  void placementInstalled(Placement placement) {
    installed = placement;
    changed();
  }

  @Override
  public TopologySnapshot current() {
    long g = generation.get();
    Built b = last;
    if (b != null && b.generation() == g) {
      return b.view();
    }
    TopologySnapshot view = build();
    last = new Built(g, view);
    return view;
  }

  private TopologySnapshot build() {
    Map<Integer, NodeInfo> known = members.known();
    Set<Integer> live = members.live();
    Map<Integer, TopologySnapshot.Member> carried = new TreeMap<>();
    for (NodeInfo n : known.values()) {
      if (carriable(n)) {
        carried.put(
            n.nodeId(),
            new TopologySnapshot.Member(
                n.nodeId(), n.host(), n.clientPort(), live.contains(n.nodeId())));
      }
    }
    long seq = sequence.incrementAndGet();
    Ring ring = members.ring();
    ClusterShape shape = members.shape();
    long settleMicros =
        shape == null || shape.timing() == null
            ? 0
            : Math.min(
                shape.timing().createSettle().toNanos() / 1_000,
                TopologySnapshot.MAX_CREATE_SETTLE_MICROS);
    List<TopologySnapshot.Member> memberList = List.copyOf(carried.values());
    Placement voters = installed;
    List<TopologySnapshot.Range> ranges =
        ring == null ? List.of() : ranges(ring, voters, carried, live);
    if (ranges == null) {
      return new TopologySnapshot(0, seq, memberList, List.of(), settleMicros);
    }
    // The view counts the shape's ring as 1 (0 means "not formed"): ring version v is 1 + v.
    long version = ring == null ? 0 : ring.version() + (voters == null ? 0 : voters.ringVersion());
    return new TopologySnapshot(
        ranges.isEmpty() ? 0 : version, seq, memberList, ranges, settleMicros);
  }

  /**
   * The ring's ranges as clients see them, or null if some range has no replica a client can reach.
   */
  private List<TopologySnapshot.Range> ranges(
      Ring ring,
      Placement voters,
      Map<Integer, TopologySnapshot.Member> carried,
      Set<Integer> live) {
    if (voters != null && voters.rangeCount() != ring.rangeCount()) {
      voters = null; // cannot happen: versions keep the ranges; the shape's ring is still right
    }
    List<TopologySnapshot.Range> out = new ArrayList<>(ring.rangeCount());
    List<Ring.RangeReplicas> ringRanges = ring.ranges();
    for (int i = 0; i < ringRanges.size(); i++) {
      List<Integer> replicas = new ArrayList<>();
      for (int id : voters != null ? voters.replicas(i) : ringRanges.get(i).replicas()) {
        if (carried.containsKey(id)) {
          replicas.add(id);
        }
      }
      if (replicas.isEmpty()) {
        return null;
      }
      int named = members.leaderOfRange(i);
      int leader = named >= 0 && live.contains(named) && carried.containsKey(named) ? named : -1;
      out.add(
          new TopologySnapshot.Range(ringRanges.get(i).range().endInclusive(), replicas, leader));
    }
    return out;
  }

  private static boolean carriable(NodeInfo n) {
    boolean ok =
        !n.host().isEmpty()
            && n.host().length() <= TopologySnapshot.MAX_HOST_CHARS
            && n.clientPort() >= 1
            && n.clientPort() <= 65_535;
    if (!ok) {
      LOG.log(
          Level.DEBUG,
          "member {0} left out of the client topology: bad client address",
          n.nodeId());
    }
    return ok;
  }

  @Override
  public AutoCloseable onChange(Runnable changed) {
    listeners.add(changed);
    return () -> listeners.remove(changed);
  }

  /** The view may differ from before: every watch builds it again (and sends it if it did). */
  void changed() {
    generation.incrementAndGet();
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a topology watch failed to hear a change: {0}", e.toString());
      }
    }
  }
}
