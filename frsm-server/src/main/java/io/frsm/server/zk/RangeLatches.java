package io.frsm.server.zk;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.curator.framework.CuratorFramework;

/**
 * The range latches one node competes in ({@link RangeLeadership}): joining and leaving them, and
 * what a latch event does to the range's term — a won latch bumps a new term, a lost latch or ended
 * lease ends the held one, a leave on purpose hands it over. The leadership's event thread only;
 * latch events come back to it through {@code post}.
 *
 * <p>The ZooKeeper writes of a term — its bump on a won latch, its release mark on a hand-over —
 * run on {@code zooKeeperCalls}, never on the event thread, and their outcomes come back through
 * {@code post}: a node that wins (or hands over) many ranges at once, as after a peer's crash or
 * return, has all their writes in flight together (ZooKeeper pipelines them on the session and
 * syncs them as a group) instead of one range's round trips after another's.
 */
final class RangeLatches {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final int self;
  private final RangeTermStore terms;
  private final HeldTerms held;

  /** Bumps a range's term: {@link RangeTermStore#bumpTerm} but for tests. */
  interface TermBumper {
    /**
     * As {@link RangeTermStore#bumpTerm(String, int, String)}: empty if a racing bump won; only
     * while {@code latchEntry} exists.
     */
    Optional<TermGrant> bump(String rangeId, int nodeId, String latchEntry) throws Exception;
  }

  private final TermBumper bumper;

  /** Where the terms' ZooKeeper writes run (any number at once). */
  private final Executor zooKeeperCalls;

  /** Won latches whose term bump is in flight (by identity: a latch left and joined is new). */
  private final Set<RangeLatch> bumping = Collections.newSetFromMap(new IdentityHashMap<>());

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
      TermBumper bumper,
      Executor zooKeeperCalls,
      Consumer<Runnable> post,
      IntConsumer rejoinLater) {
    this.bumper = bumper;
    this.zooKeeperCalls = zooKeeperCalls;
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

  /**
   * Waits (bounded) until the hand-overs in flight left their latches and the creations of left
   * latches' entries are answered.
   */
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
    if (!onPurpose) {
      held.stepDown(range, why);
      if (latch != null) {
        close(latch);
      }
      return;
    }
    // The release mark must be written before the latch is left, so that the successor's bump,
    // which follows its win, finds it; the node stops holding the term at once.
    CompletableFuture<Void> released = held.release(range, why, zooKeeperCalls);
    if (latch == null) {
      return;
    }
    if (released.isDone()) {
      close(latch);
      return;
    }
    CompletableFuture<Void> left = new CompletableFuture<>();
    creations.track(left);
    // Closed on the thread that completes the release (a latch may be closed on any thread), so
    // that a leadership closing, whose event thread runs no more tasks, still leaves it.
    released.whenComplete(
        (ignored, error) -> {
          close(latch);
          left.complete(null);
        });
  }

  private void close(RangeLatch latch) {
    latch.close(); // final at once, even with its own reads in flight: it reports nothing more
    creations.track(latch.creationAnswered());
  }

  /** Won the latch: take a new term (bumped off the event thread), then keep its lease. */
  private void won(int range, RangeLatch latch) {
    if (latches.get(range) != latch || !latch.leads() || held.holds(range) || !bumping.add(latch)) {
      return;
    }
    String rangeId = ZkLayout.rangeId(range);
    try {
      CompletableFuture.supplyAsync(() -> bump(rangeId, latch), zooKeeperCalls)
          .whenComplete((grant, error) -> post.accept(() -> bumped(range, latch, grant, error)));
    } catch (RejectedExecutionException stopping) {
      bumping.remove(latch); // the leadership stops: nothing more to take
    }
  }

  /** On a ZooKeeper-call thread: bumps the term while the latch still leads. */
  private Optional<TermGrant> bump(String rangeId, RangeLatch latch) {
    try {
      Optional<TermGrant> grant = Optional.empty();
      String entry = latch.entryPath();
      long session = latch.leadingSession();
      if (entry == null) {
        return grant; // left meanwhile
      }
      for (int attempt = 0; attempt < 5 && grant.isEmpty() && latch.leads(); attempt++) {
        // empty: a racing bump; read the new term, retry
        grant = bumper.bump(rangeId, self, entry);
      }
      return grant.map(g -> g.inLatchSession(session));
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  /**
   * The bump of {@code latch}'s range answered: hold the term if the latch is still this node's and
   * still leads. A term bumped for a latch left meanwhile is simply not held: its lease was never
   * granted to the core, and the next winner bumps past it.
   */
  private void bumped(int range, RangeLatch latch, Optional<TermGrant> grant, Throwable error) {
    bumping.remove(latch);
    boolean current = latches.get(range) == latch;
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      if (!current) {
        // Expected, not a problem: the latch was left while its bump was in flight (a hand-over
        // to a node that became preferred again, as after a session expiry), so its entry went
        // and the bump's check of it refused the bump (or the call was cut short).
        LOG.log(
            System.Logger.Level.INFO,
            "node {0}: term bump of range {1} not made: left the latch meanwhile ({2})",
            self,
            range,
            cause.toString());
        return;
      }
      LOG.log(System.Logger.Level.WARNING, "node " + self + ": term bump of range " + range, cause);
      leave(range, "term bump failed", false);
      rejoinLater.accept(range);
      return;
    }
    if (current && grant.isPresent() && latch.leads() && !held.holds(range)) {
      held.take(range, grant.get());
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
