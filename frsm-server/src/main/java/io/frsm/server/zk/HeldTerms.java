package io.frsm.server.zk;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.KeeperException;

/**
 * The range terms one node holds ({@link RangeLeadership}), and how a held term ends: handed over
 * on purpose (the lease released through the core and, if the core answers clean, the term marked
 * released so the successor skips its wait) or lost (the successor waits). Changed on the
 * leadership's event thread; {@link #holds} and {@link #count} are read on any thread.
 */
final class HeldTerms {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  /** How long a release waits for the core's answer before the latch is left unmarked. */
  private static final Duration RELEASE_ANSWER_TIMEOUT = Duration.ofSeconds(2);

  private final int self;
  private final RangeTermStore terms;
  private final RangeLeadership.Sink sink;
  private final LeaseKeeper keeper;
  private final Map<Integer, TermGrant> held = new ConcurrentHashMap<>();
  private final LongAdder releasesMarked = new LongAdder();
  private final LongAdder termsAfterRelease = new LongAdder();

  HeldTerms(int self, RangeTermStore terms, RangeLeadership.Sink sink, LeaseKeeper keeper) {
    this.self = self;
    this.terms = terms;
    this.sink = sink;
    this.keeper = keeper;
  }

  /** Whether this node holds range {@code range}'s term now. Any thread. */
  boolean holds(int range) {
    return held.containsKey(range);
  }

  /** The grant of the range's term this node holds now, or null. */
  TermGrant grant(int range) {
    return held.get(range);
  }

  /** Ranges whose term this node holds now. Any thread. */
  int count() {
    return held.size();
  }

  /** Terms released on purpose and marked released. */
  long releasesMarked() {
    return releasesMarked.sum();
  }

  /** Terms won whose bump found the predecessor's release mark. */
  long termsAfterRelease() {
    return termsAfterRelease.sum();
  }

  /** The node bumped range {@code range}'s term to {@code g}: tell the core, keep its lease. */
  void take(int range, TermGrant g) {
    held.put(range, g);
    if (g.predecessorReleased()) {
      termsAfterRelease.increment();
    }
    sink.granted(range, g.term(), g.noEarlierLease());
    keeper.hold(g);
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} leads range {1} in term {2}{3}",
        self,
        range,
        g.term(),
        g.predecessorReleased()
            ? " (predecessor released: no wait)"
            : g.noEarlierLease() ? " (the range's first term: no wait)" : "");
  }

  /** The keeper ended the term's lease already: forgets it; whether it was held. */
  boolean forget(int range) {
    return held.remove(range) != null;
  }

  /** The node is killed: forgets every term without a word to ZooKeeper or the core. */
  void clear() {
    held.clear();
  }

  /**
   * Hands the range over on purpose: stop renewing (at once, on the event thread), let the core end
   * the lease for good, and, if it answers clean, mark the term released (on {@code
   * zooKeeperCalls}). The caller leaves the latch once the returned future completes (it never
   * completes exceptionally); the core answers within one turn of its loop.
   */
  CompletableFuture<Void> release(int range, String why, Executor zooKeeperCalls) {
    TermGrant g = held.remove(range);
    if (g == null) {
      return CompletableFuture.completedFuture(null);
    }
    keeper.release(g.rangeId()); // first: no renewal of this term is reported after this
    CompletableFuture<Boolean> answer;
    try {
      answer = sink.release(range, g.term());
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    try {
      return answer
          .orTimeout(RELEASE_ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .handle(
              (clean, error) -> {
                if (error == null) {
                  return clean;
                }
                // No answer: the core may still hold the lease for a moment; end it the usual
                // way and let the successor wait.
                sink.lost(range);
                LOG.log(
                    System.Logger.Level.WARNING,
                    "node " + self + ": release of range " + range,
                    error);
                return false;
              })
          .thenAcceptAsync(clean -> marked(range, g, why, clean), zooKeeperCalls)
          .exceptionally(
              error -> {
                LOG.log(
                    System.Logger.Level.WARNING,
                    "node " + self + ": release of range " + range,
                    error);
                return null;
              });
    } catch (RejectedExecutionException stopping) {
      return CompletableFuture.completedFuture(null); // the leadership stops: leave unmarked
    }
  }

  /** On a ZooKeeper-call thread: marks {@code g} released if the core answered clean. */
  private void marked(int range, TermGrant g, String why, boolean clean) {
    boolean marked = false;
    String failure = null;
    if (clean) {
      try {
        marked = terms.markReleased(g);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = "interrupted: the node is stopping";
      } catch (KeeperException e) {
        // ZooKeeper gone or the session over (a stop with ZooKeeper down): one line, no trace.
        failure = "ZooKeeper answered " + e.code();
      } catch (Exception e) {
        failure = e.toString();
        LOG.log(System.Logger.Level.WARNING, "node " + self + ": release mark of " + range, e);
      }
    }
    if (marked) {
      releasesMarked.increment();
    }
    LOG.log(
        failure == null ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
        "node {0} hands range {1} over in term {2} ({3}): {4}",
        self,
        range,
        g.term(),
        why,
        handOverOutcome(marked, clean, failure));
  }

  /** What a hand-over left its successor, for the one log line it gets. */
  static String handOverOutcome(boolean marked, boolean clean, String markFailure) {
    if (marked) {
      return "marked released, the successor need not wait";
    }
    if (markFailure != null) {
      return "the release mark was not written ("
          + markFailure
          + "); the successor waits out the lease";
    }
    return clean
        ? "a successor bumped first; it waits out the lease"
        : "not clean (this node had not waited out its predecessor), the successor waits out the"
            + " lease";
  }

  void stepDown(int range, String why) {
    TermGrant g = held.remove(range);
    if (g != null) {
      keeper.release(g.rangeId());
      sink.lost(range);
      LOG.log(
          System.Logger.Level.INFO,
          "node {0} loses range {1} in term {2}: {3}",
          self,
          range,
          g.term(),
          why);
    }
  }
}
