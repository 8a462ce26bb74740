package io.frsm.server.membership;

import io.frsm.consensus.core.Placement;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.RangeCopyRequests.Name;
import io.frsm.server.zk.RangeCopyRequests.Request;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * The incoming node's side of a range copy (docs/PROTOCOL.md "Membership changes", "Copy"): runs
 * every open {@code ring/copies/<version>-<self>-<range>} request with this node's {@link
 * RangeCopier}, pulling from the range's voters at that version (the first voter first, the others
 * if it fails), and records the outcome in the request. A copy resumes after a restart of either
 * side (the streams keep their staging); one that fails from every voter {@link #ROUNDS} times is
 * recorded as failed, which stops the change at its learner version (never skips to voter).
 *
 * <p>Only a copy this node should run is run: the request must decode (checksum, its name), name a
 * ring version this node installed in which it is a learner of the range, and the node must still
 * be a learner of it in the version it runs. Anything else is refused with a log (once per request)
 * and left alone: a forged request can at most make a learner copy its own range again, which
 * merges nothing new (copies only join cells). The token bounds and sources come from the ring
 * history, never from the request.
 *
 * <p>Thread-safety: its own thread (copies run one at a time); {@link #close} from any thread.
 */
public final class RangeCopyAgent implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(RangeCopyAgent.class.getName());
  private static final long RESCAN_MILLIS = 1_000;

  /** Tries through all voters before a copy counts as failed. */
  static final int ROUNDS = 3;

  /**
   * The pause after a round in which every voter failed, times the rounds so far: a voter that is
   * restarting (unregistered, so its copy fails at once: {@code ReceiveSession}) gets a few seconds
   * to come back before the copy is recorded failed.
   */
  static final long ROUND_PAUSE_MILLIS = 2_000;

  private final int self;
  private final RangeCopyRequests requests;
  private final RingHistory history;
  private final RingVersion initial;
  private final LongSupplier installedVersion;
  private final RangeCopier copier;
  private final Duration attemptTimeout;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean passQueued = new AtomicBoolean();
  private final Set<Name> refused = ConcurrentHashMap.newKeySet();

  /** Voters a copy failed from lately, tried last (a dead node being replaced fails every copy). */
  private final Set<Integer> failedSources = ConcurrentHashMap.newKeySet();

  /**
   * Whether a node is registered in ZooKeeper now (a live member). A voter that is not is tried
   * after those that are: a dead node being replaced is one, and {@link #failedSources} is empty
   * again after this node restarts, so without this each restart of an incoming node spent the
   * stream's whole redial back-off (about 13 s: "node N has no known peer address", six attempts)
   * on the dead node before trying the next voter (MultiProcessMembershipIT).
   */
  private final IntPredicate registered;

  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder refusals = new LongAdder();
  private volatile boolean closed;

  /**
   * An agent that takes every voter for registered (tests).
   *
   * @see #RangeCopyAgent(int, RangeCopyRequests, RingHistory, RingVersion, LongSupplier,
   *     RangeCopier, Duration, IntPredicate)
   */
  public RangeCopyAgent(
      int self,
      RangeCopyRequests requests,
      RingHistory history,
      RingVersion initial,
      LongSupplier installedVersion,
      RangeCopier copier,
      Duration attemptTimeout) {
    this(self, requests, history, initial, installedVersion, copier, attemptTimeout, id -> true);
  }

  /**
   * @param installedVersion the ring version this node's cores run
   * @param attemptTimeout how long one copy from one voter may take before it is tried elsewhere
   * @param registered whether a node is registered now: voters that are not are tried last
   */
  public RangeCopyAgent(
      int self,
      RangeCopyRequests requests,
      RingHistory history,
      RingVersion initial,
      LongSupplier installedVersion,
      RangeCopier copier,
      Duration attemptTimeout,
      IntPredicate registered) {
    this.registered = registered;
    this.self = self;
    this.requests = requests;
    this.history = history;
    this.initial = initial;
    this.installedVersion = installedVersion;
    this.copier = copier;
    this.attemptTimeout = attemptTimeout;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-" + self + "-copies");
              t.setDaemon(true);
              return t;
            });
  }

  public void start() {
    thread.scheduleWithFixedDelay(this::pass, 0, RESCAN_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void wake() {
    if (!closed && passQueued.compareAndSet(false, true)) {
      try {
        thread.execute(
            () -> {
              passQueued.set(false);
              pass();
            });
      } catch (RejectedExecutionException stopping) {
        passQueued.set(false);
      }
    }
  }

  private void pass() {
    if (closed) {
      return;
    }
    try {
      List<Name> mine = new ArrayList<>();
      for (Name n : requests.names(event -> wake())) {
        if (n.node() == self && !refused.contains(n)) {
          mine.add(n);
        }
      }
      if (mine.isEmpty()) {
        return;
      }
      List<RingVersion> versions = history.read(initial, null);
      for (Name n : mine) {
        if (closed) {
          return;
        }
        runIfOpen(n, versions);
      }
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (Exception | AssertionError e) {
      if (!closed) {
        LOG.log(Level.WARNING, "node " + self + ": copy requests pass failed, retrying: " + e);
      }
    }
  }

  private void runIfOpen(Name n, List<RingVersion> versions) throws Exception {
    Request r;
    try {
      r = requests.get(n.version(), n.node(), n.range(), null);
    } catch (RangeCopyRequests.Malformed bad) {
      refuse(n, bad.getMessage());
      return;
    }
    if (r == null || r.state() != RangeCopyRequests.State.OPEN) {
      return;
    }
    long installed = installedVersion.getAsLong();
    if (r.version() > installed) {
      return; // not installed here yet: the orchestrator asks only after it was; wait for it
    }
    if (r.version() < 1 || r.version() >= versions.size() || installed >= versions.size()) {
      refuse(n, "ring version " + r.version() + " is not a published version of this node's");
      return;
    }
    Placement at = versions.get((int) r.version()).placement();
    Placement now = versions.get((int) installed).placement();
    if (r.range() >= at.rangeCount() || !at.learners(r.range()).contains(self)) {
      refuse(n, "node " + self + " is no learner of range " + r.range() + " there");
      return;
    }
    if (r.range() >= now.rangeCount() || !now.learners(r.range()).contains(self)) {
      refuse(n, "node " + self + " is no longer a learner of range " + r.range());
      return;
    }
    List<Integer> sources = new ArrayList<>(at.replicas(r.range()));
    // Stable: voter order among the registered voters no copy failed from lately, then the
    // unregistered ones (dead, or restarting), then those that failed.
    sources.sort(
        Comparator.comparing((Integer id) -> !registered.test(id))
            .thenComparing(failedSources::contains));
    String why = copy(sources, at.startTokenExclusive(r.range()), at.endToken(r.range()), r);
    Request outcome =
        why != null
            ? r.failed(why)
            : copier.placesData()
                ? r.done()
                : r.doneWithoutData("nothing copied: stream.copyOnJoin is false");
    if (requests.answer(outcome)) {
      (why == null ? completed : failed).increment();
      LOG.log(why == null ? Level.INFO : Level.ERROR, "node {0}: {1}", self, outcome);
    }
  }

  /** Copies from the first voter that serves it; null on success, else the last failure. */
  private String copy(List<Integer> sources, long from, long to, Request r)
      throws InterruptedException {
    String last = "the range has no voter to copy from";
    for (int round = 0; round < ROUNDS; round++) {
      if (round > 0) {
        TimeUnit.MILLISECONDS.sleep(ROUND_PAUSE_MILLIS * round); // close() interrupts it
      }
      for (int source : sources) {
        if (closed || source == self) {
          continue;
        }
        CompletableFuture<Void> f = copier.copy(source, from, to);
        try {
          f.get(attemptTimeout.toMillis(), TimeUnit.MILLISECONDS);
          failedSources.remove(source);
          return null;
        } catch (ExecutionException e) {
          last = "from node " + source + ": " + e.getCause().getMessage();
        } catch (TimeoutException e) {
          f.cancel(true);
          last = "from node " + source + ": no end within " + attemptTimeout;
        } catch (InterruptedException stopping) {
          // Left running for the streams' close to abandon: its staging is kept to resume.
          throw stopping;
        }
        failedSources.add(source);
        LOG.log(Level.WARNING, "node {0}: {1} failed {2}; trying another voter", self, r, last);
      }
    }
    if (closed) {
      throw new InterruptedException("closing");
    }
    return last;
  }

  private void refuse(Name n, String why) {
    if (refused.add(n)) {
      refusals.increment();
      LOG.log(
          Level.ERROR,
          "node {0}: refused the copy request {1}: {2}; it stays unanswered",
          self,
          n,
          why);
    }
  }

  /** Copies this node imported by request (meters). */
  public long completed() {
    return completed.sum();
  }

  /** Copies recorded as failed (meters). */
  public long failed() {
    return failed.sum();
  }

  /** Requests refused as malformed or not this node's to run (meters, tests). */
  public long refused() {
    return refusals.sum();
  }

  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
