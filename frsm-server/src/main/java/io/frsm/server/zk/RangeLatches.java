package io.frsm.server.zk;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.curator.framework.CuratorFramework;

/**
 * The range latches one node competes in ({@link RangeLeadership}): joining and leaving them, and
 * what a latch event does to the range's term — a won latch bumps a new term, a lost latch or ended
 * lease ends the held one, a leave on purpose hands it over. The leadership's event thread only;
 * latch events come back to it through {@code post}.
 */
final class RangeLatches {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final int self;
  private final RangeTermStore terms;
  private final HeldTerms held;

  /** Runs a task on the leadership's event thread. */
  private final Consumer<Runnable> post;

  /** Competes for the range again a moment later, if this node is still its preferred holder. */
  private final IntConsumer rejoinLater;

  private final Map<Integer, RangeLatch> latches = new HashMap<>();

  /**
   * Entry creations of left latches still unanswered: {@link RangeLeadership#close} waits for them
   * so that the node does not close its ZooKeeper client under them.
   */
  private final UnansweredCreations creations = new UnansweredCreations();

  RangeLatches(
      CuratorFramework zk,
      ZkLayout layout,
      int self,
      RangeTermStore terms,
      HeldTerms held,
      Consumer<Runnable> post,
      IntConsumer rejoinLater) {
    this.zk = zk;
    this.layout = layout;
    this.self = self;
    this.terms = terms;
    this.held = held;
    this.post = post;
    this.rejoinLater = rejoinLater;
  }

  /** Whether this node is in the range's latch. */
  boolean joined(int range) {
    return latches.containsKey(range);
  }

  /** The ranges whose latch this node is in. */
  List<Integer> joinedRanges() {
    return List.copyOf(latches.keySet());
  }

  /** Waits (bounded) until the creations of left latches' entries are answered. */
  void awaitCreations() {
    creations.await(self);
  }

  /** Joins the range's latch: this node competes for it. */
  void join(int range) {
    RangeLatch latch =
        new RangeLatch(
            zk,
            layout.latch(ZkLayout.rangeId(range)),
            Integer.toString(self),
            "node " + self + ", range " + range,
            new RangeLatch.Listener() {
              @Override
              public void won(RangeLatch winner) {
                post.accept(() -> RangeLatches.this.won(range, winner));
              }

              @Override
              public void lost(RangeLatch loser) {
                post.accept(() -> latchLost(range, loser));
              }
            });
    latches.put(range, latch);
    latch.start();
  }

  /**
   * Leaves the range's latch; {@code onPurpose}: a hand-over (release the lease through the core
   * and mark it, so the successor need not wait) rather than a lost term.
   */
  void leave(int range, String why, boolean onPurpose) {
    RangeLatch latch = latches.remove(range);
    if (onPurpose) {
      held.release(range, why);
    } else {
      held.stepDown(range, why);
    }
    if (latch != null) {
      latch.close(); // final at once, even with its own reads in flight: it reports nothing more
      creations.track(latch.creationAnswered());
    }
  }

  /** Won the latch: take a new term, then keep its lease. */
  private void won(int range, RangeLatch latch) {
    if (latches.get(range) != latch || !latch.leads() || held.holds(range)) {
      return;
    }
    String rangeId = ZkLayout.rangeId(range);
    try {
      Optional<TermGrant> grant = Optional.empty();
      for (int attempt = 0; attempt < 5 && grant.isEmpty() && latch.leads(); attempt++) {
        grant = terms.bumpTerm(rangeId, self); // empty: a racing bump; read the new term, retry
      }
      if (grant.isEmpty() || !latch.leads()) {
        return;
      }
      held.take(range, grant.get());
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "node " + self + ": term bump of range " + range, e);
      leave(range, "term bump failed", false);
      rejoinLater.accept(range);
    }
  }

  private void latchLost(int range, RangeLatch latch) {
    if (latches.get(range) == latch) {
      held.stepDown(range, "lost the latch");
    }
  }

  /** The keeper ended the lease (failed check or connection): the term is over for this node. */
  void leaseEnded(int range) {
    if (held.forget(range) && latches.containsKey(range)) {
      // Still in the latch with a dead term: leave and compete again for a fresh term.
      leave(range, "lease ended", false);
      rejoinLater.accept(range);
    }
  }
}
