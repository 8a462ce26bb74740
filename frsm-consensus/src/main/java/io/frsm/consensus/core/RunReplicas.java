package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.List;

/**
 * The replicas one run counts its quorums over, as of one ring version: the voters of the key's
 * range and their quorum, and the learners that get the commits (and a delete's accepts) but never
 * count.
 *
 * @param replicas the range's voters
 * @param learners the range's learners; never part of a quorum (docs/PROTOCOL.md "Membership
 *     changes")
 * @param ringVersion the ring version of this set, carried by every request the run sends with it
 * @param quorum {@code q} of the voters
 */
record RunReplicas(List<Integer> replicas, List<Integer> learners, long ringVersion, int quorum) {

  /** The set of {@code key}'s range at the ring version the node runs now. */
  static RunReplicas current(RunContext context, Key key) {
    List<Integer> voters = context.replicasOf(key);
    return new RunReplicas(
        voters, context.learnersOf(key), context.ringVersion(), CoreConfig.quorum(voters.size()));
  }

  /** Voters then learners: every replica that stores the key at this ring version. */
  List<Integer> members() {
    if (learners.isEmpty()) {
      return replicas;
    }
    List<Integer> all = new ArrayList<>(replicas);
    all.addAll(learners);
    return all;
  }

  /**
   * {@code q} voters for a partial round: this node first, then the others in replica-set order
   * after it, skipping peers that left a request unanswered for longer than the hedge delay (they
   * come last). A dead follower thus costs one hedge, not one per round. Liveness only: any {@code
   * q} voters are a valid quorum.
   */
  List<Integer> firstQuorum(Now now, RunContext context) {
    List<Integer> order = new ArrayList<>(replicas.size());
    List<Integer> suspected = new ArrayList<>(1);
    int self = replicas.indexOf(context.nodeId());
    for (int i = 0; i < replicas.size(); i++) {
      int node = replicas.get(Math.floorMod(Math.max(self, 0) + i, replicas.size()));
      if (node != context.nodeId() && context.suspected(node, now.monoNanos())) {
        suspected.add(node);
      } else {
        order.add(node);
      }
    }
    order.addAll(suspected);
    return order.subList(0, quorum);
  }
}
