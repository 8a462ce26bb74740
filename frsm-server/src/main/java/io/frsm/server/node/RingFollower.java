package io.frsm.server.node;

import io.frsm.server.zk.RangeSettleRequests;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * This node's side of the ring history (docs/PROTOCOL.md "Membership changes", "The server's
 * side"): installs every accepted ring version in order on all core shards, then records the
 * installation in ZooKeeper (the acknowledgements the orchestrator counts), and runs the settles
 * asked of the ranges this node holds.
 *
 * <p>Order matters: a version is acknowledged only after every shard emitted {@code RingInstalled}
 * for it (or runs a newer one), because an acknowledgement promises the orchestrator that this node
 * refuses older rounds of the ranges that changed. The node's cores are built with the newest
 * version in the history (the restart rule: never older than one this node acknowledged, since the
 * history is read after a sync and acknowledgements follow installations).
 *
 * <p>Everything runs on one thread of its own, woken by ZooKeeper watches and a core's {@code
 * RingBehind}, and every {@link #RESYNC_MILLIS} anyway (a watch lost with a session, a holder that
 * changed under an open settle). A ZooKeeper error or a refused version is logged (at most once a
 * second per kind) and retried at the next pass: nothing read stops the node.
 *
 * <p>Thread-safety: {@link #wake} and {@link #close} from any thread; the rest on the follower's.
 */
final class RingFollower implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(RingFollower.class.getName());

  static final long RESYNC_MILLIS = 1_000;

  /** Between tries of a settle the core abandoned: it abandons at once while a version moves. */
  private static final long SETTLE_RETRY_MILLIS = 100;

  /** How long one installation may take on a loaded core before the pass gives up and retries. */
  private static final long INSTALL_TIMEOUT_SECONDS = 30;

  private final int self;
  private final RingHistory history;
  private final RangeSettleRequests settles;
  private final RingVersion initial;
  private final CoreShards core;
  private final IntPredicate holds;
  private final java.util.function.Consumer<RingVersion> installedListener;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean passQueued = new AtomicBoolean();
  private final Set<Integer> settling = ConcurrentHashMap.newKeySet();
  private final RateLimitedLog failures =
      new RateLimitedLog(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final Watcher watcher = this::watched;
  private volatile boolean closed;

  /** Acknowledged in ZooKeeper (follower thread only). */
  private long acknowledged = -1;

  /**
   * @param initial version 0, from the cluster's shape
   * @param holds whether this node holds a range's term now (only the holder settles)
   * @param installedListener runs after each version is installed and acknowledged (and once at the
   *     start, with the version the cores were built with)
   */
  RingFollower(
      int self,
      RingHistory history,
      RangeSettleRequests settles,
      RingVersion initial,
      CoreShards core,
      IntPredicate holds,
      java.util.function.Consumer<RingVersion> installedListener) {
    this.self = self;
    this.history = history;
    this.settles = settles;
    this.initial = initial;
    this.core = core;
    this.holds = holds;
    this.installedListener = installedListener;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-" + self + "-ring");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts following; the first pass acknowledges the version the cores were built with. */
  void start() {
    core.onRingBehind(version -> wake());
    thread.scheduleWithFixedDelay(this::pass, 0, RESYNC_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Runs a pass soon (coalesced: one queued at a time). */
  void wake() {
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

  private void watched(WatchedEvent event) {
    wake();
  }

  private void pass() {
    if (closed) {
      return;
    }
    try {
      installNewer();
      settleHeldRanges();
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (Exception | AssertionError e) {
      if (!closed) {
        failures.log("node " + self + ": ring history pass failed, retrying: " + e, null);
      }
    }
  }

  private void installNewer() throws Exception {
    List<RingVersion> versions = history.read(initial, watcher);
    RingVersion newest = null;
    for (RingVersion v : versions) {
      if (v.version() == core.ringVersion()) {
        newest = v;
      }
      if (v.version() <= core.ringVersion()) {
        continue;
      }
      try {
        core.install(v.placement()).get(INSTALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (TimeoutException slow) {
        failures.log("node " + self + ": ring version " + v.version() + " not installed yet", null);
        return;
      }
      LOG.log(Level.INFO, "node {0} installed ring version {1}", self, v.version());
      newest = v;
    }
    long running = core.ringVersion();
    if (running > acknowledged) {
      history.acknowledge(self, running);
      acknowledged = running;
      if (newest != null && newest.version() == running) {
        installedListener.accept(newest);
      }
    }
  }

  /** Runs every open settle of the installed version for the ranges this node holds. */
  private void settleHeldRanges() throws Exception {
    long version = core.ringVersion();
    for (RangeSettleRequests.Request r : settles.all(version, watcher)) {
      if (r.settled() || !holds.test(r.range()) || !settling.add(r.range())) {
        continue;
      }
      core.settle(r.range(), version)
          .whenComplete(
              (settled, error) -> {
                if (Boolean.TRUE.equals(settled)) {
                  answer(version, r.range()); // still marked settling until the answer is written
                } else {
                  settling.remove(r.range());
                  retrySoon(); // abandoned (a newer version, a lost lease): again if still held
                }
              });
    }
  }

  private void retrySoon() {
    try {
      thread.schedule(this::wake, SETTLE_RETRY_MILLIS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      // Closing: the request stays open for the next holder.
    }
  }

  private void answer(long version, int range) {
    try {
      thread.execute(
          () -> {
            try {
              settles.answer(version, range, self);
              settling.remove(range);
              LOG.log(
                  Level.INFO,
                  "node {0} settled range {1} at ring version {2}",
                  self,
                  range,
                  version);
            } catch (Exception e) {
              failures.log("node " + self + ": cannot record the settle of range " + range, e);
              settling.remove(range);
              wake();
            }
          });
    } catch (RejectedExecutionException stopping) {
      settling.remove(range); // closing: the request stays open for the next holder
    }
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
