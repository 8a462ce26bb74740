package io.frsm.server.node;

import io.frsm.cell.Key;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RangeLeaders;
import io.frsm.server.zk.RangeLeadership;
import java.util.List;
import java.util.Set;

/**
 * Which node should coordinate an operation on a key, as this node sees it: itself when it holds
 * the key's range, else the range's leader. A node never coordinates a key of a range it does not
 * replicate.
 *
 * <p>The leader named in ZooKeeper ({@link RangeLeaders}) is trusted only while it is live and
 * still the range's preferred holder (the first live, ready replica): during a hand-back the
 * stand-in is still named until the natural leader bumps the term, and sending to the natural
 * leader then (which queues the operation until its grant) avoids two nodes redirecting to each
 * other. When no leader is known the preferred holder is the answer: it is the replica that takes
 * the range over.
 *
 * <p>The preferred holder is taken from {@link RangeLeadership}'s view of the members, the one it
 * tells the core its candidacies by: an operation this node queues for itself as the preferred
 * holder waits in the core only while the core knows the node competes for the range, and is given
 * back to be routed again once it does not (Input.Candidacy). With a view of its own, routing could
 * queue an operation here for a range the node never competes for, to wait out {@code T}.
 */
final class RangeRouter {
  private final int self;
  private final Ring ring;
  private final RangeLeaders leaders;
  private final RangeLeadership leadership;

  RangeRouter(int self, Ring ring, RangeLeaders leaders, RangeLeadership leadership) {
    this.self = self;
    this.ring = ring;
    this.leaders = leaders;
    this.leadership = leadership;
  }

  /** The node to coordinate {@code key}: this node's id means "run it here". */
  int coordinatorOf(Key key) {
    int range = ring.rangeIndexOf(key.token());
    if (leadership.holds(range)) {
      return self;
    }
    return successorOf(range, false);
  }

  /**
   * The node to coordinate {@code key} once this node's core gave the operation back because it
   * gave the key's range up (or stopped competing for it). Never this node while another replica is
   * live: for a moment after the core was told, this node may still hold the range's latch (its
   * release is on the way) or see itself as the preferred holder, and running the operation here
   * again would only be given back again — three times, and the caller would hear "not executed"
   * for a write the new leader would have run.
   */
  int coordinatorAfterHandOver(Key key) {
    return successorOf(ring.rangeIndexOf(key.token()), true);
  }

  private int successorOf(int range, boolean notSelf) {
    List<Integer> replicas = ring.replicasOfRange(range);
    Set<Integer> live = leadership.liveMembers();
    int preferred = leadership.preferredHolder(range);
    int named = leaders.holder(range);
    if (named >= 0 && named != self && named == preferred) {
      return named;
    }
    if (preferred >= 0 && !(notSelf && preferred == self)) {
      return preferred;
    }
    for (int id : replicas) {
      if (live.contains(id) && !(notSelf && id == self)) {
        return id; // live but not ready yet: it will be soon
      }
    }
    return replicas.contains(self) ? self : replicas.get(0);
  }

  /** The range index of {@code key}. */
  int rangeOf(Key key) {
    return ring.rangeIndexOf(key.token());
  }
}
