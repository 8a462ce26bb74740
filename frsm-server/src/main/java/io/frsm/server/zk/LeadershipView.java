package io.frsm.server.zk;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A view of the members ({@link RangeLeadership}): who is live, who is ready, and per node the
 * ranges it does not compete for because it cannot reach a quorum of their replicas (this node's
 * own from its cores, the others' from their ready markers).
 */
record LeadershipView(
    Set<Integer> live, Set<Integer> ready, Map<Integer, Set<Integer>> unreachable) {
  static final LeadershipView NONE = new LeadershipView(Set.of(), Set.of(), Map.of());

  /** The first replica, in the range's order, that is live, ready and reaches its quorum. */
  int preferredHolder(int range, List<Integer> replicas) {
    for (int id : replicas) {
      if (live.contains(id)
          && ready.contains(id)
          && !unreachable.getOrDefault(id, Set.of()).contains(range)) {
        return id;
      }
    }
    return -1;
  }
}
