package io.frsm.client;

import io.frsm.client.transport.TopologySnapshot;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where a seed-based client sends each key, from the last topology a node told it
 * (docs/formats/wire.md "Topology"): the key's range (by {@link RingToken}, the same ranges as the
 * nodes' ring), then the range's live leader, its other live replicas (natural leader first), and
 * any other live member, which redirects. With no ring yet, every live member; with no live member,
 * the seeds.
 *
 * <p>The view may be stale; routing by it is safe because it only picks where a call goes first: a
 * node that does not lead the key redirects, and the client moves to its next candidate only after
 * a definite "not executed" (never after a mutation whose outcome is unknown).
 *
 * <p>Immutable; member addresses are resolved once, when the view is built (never per call).
 */
final class RoutingView {
  private final TopologySnapshot topology;
  private final long[] endTokens;
  private final List<List<InetSocketAddress>> candidatesByRange;
  private final List<InetSocketAddress> anyLive;

  private RoutingView(
      TopologySnapshot topology,
      long[] endTokens,
      List<List<InetSocketAddress>> candidatesByRange,
      List<InetSocketAddress> anyLive) {
    this.topology = topology;
    this.endTokens = endTokens;
    this.candidatesByRange = candidatesByRange;
    this.anyLive = anyLive;
  }

  /** The view before any node answered: every call goes to a seed. */
  static RoutingView ofSeeds(List<InetSocketAddress> seeds) {
    return new RoutingView(null, new long[0], List.of(), List.copyOf(seeds));
  }

  /**
   * The routing of {@code topology}; {@code seeds} are the fallback while no member is live.
   * REQUIRES: {@code topology} passed {@link TopologySnapshot}'s checks (strictly ascending end
   * tokens, replicas and leaders are members).
   */
  static RoutingView of(TopologySnapshot topology, List<InetSocketAddress> seeds) {
    Map<Integer, InetSocketAddress> liveAddress = new HashMap<>();
    List<InetSocketAddress> anyLive = new ArrayList<>();
    for (TopologySnapshot.Member m : topology.members()) {
      if (m.live()) {
        InetSocketAddress a = new InetSocketAddress(m.host(), m.clientPort());
        liveAddress.put(m.nodeId(), a);
        anyLive.add(a);
      }
    }
    if (anyLive.isEmpty()) {
      anyLive.addAll(seeds);
    }
    List<TopologySnapshot.Range> ranges = topology.ranges();
    long[] ends = new long[ranges.size()];
    List<List<InetSocketAddress>> candidates = new ArrayList<>(ranges.size());
    for (int i = 0; i < ranges.size(); i++) {
      TopologySnapshot.Range r = ranges.get(i);
      ends[i] = r.endToken();
      LinkedHashSet<InetSocketAddress> order = new LinkedHashSet<>();
      if (r.leader() >= 0 && liveAddress.containsKey(r.leader())) {
        order.add(liveAddress.get(r.leader()));
      }
      for (int id : r.replicas()) {
        InetSocketAddress a = liveAddress.get(id);
        if (a != null) {
          order.add(a);
        }
      }
      order.addAll(anyLive);
      candidates.add(List.copyOf(order));
    }
    return new RoutingView(topology, ends, List.copyOf(candidates), List.copyOf(anyLive));
  }

  /** Where to send an operation on {@code key}, best first; never empty if there are seeds. */
  List<InetSocketAddress> route(byte[] key) {
    if (endTokens.length == 0) {
      return anyLive;
    }
    return candidatesByRange.get(rangeIndexOf(RingToken.of(key)));
  }

  /**
   * The range holding {@code token}: the first range whose end is at or after it, wrapping to range
   * 0 past the last end (as the nodes' ring does).
   */
  int rangeIndexOf(long token) {
    int i = Arrays.binarySearch(endTokens, token);
    if (i >= 0) {
      return i;
    }
    int insertion = -i - 1;
    return insertion == endTokens.length ? 0 : insertion;
  }

  /** The client addresses of the live members (the connections worth keeping). */
  Set<InetSocketAddress> liveAddresses() {
    return Set.copyOf(anyLive);
  }

  /** The topology this view was built from, or null for the seeds-only view. */
  TopologySnapshot topology() {
    return topology;
  }
}
