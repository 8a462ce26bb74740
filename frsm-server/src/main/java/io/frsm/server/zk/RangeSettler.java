package io.frsm.server.zk;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.Watcher;

/**
 * The orchestrator's side of a settle (docs/PROTOCOL.md "Membership changes", rule 4b): asks for
 * ranges to be settled at a ring version through {@link RangeSettleRequests} and waits until each
 * range's holder answered. The holder retries a settle its core abandoned and a new holder takes
 * over an open request, so waiting is all that is left here. REQUIRES: a quorum of the version's
 * voters of each range installed it before the ask (a settle counts only if asked after that).
 *
 * <p>Not thread-safe: one orchestrator thread uses it.
 */
public final class RangeSettler {
  /**
   * The settle records the settler asks and reads: {@link RangeSettleRequests}'s (tests: fakes).
   */
  interface Records {
    void ask(long version, int range) throws Exception;

    /** The request's state, or null if never asked; sets {@code watcher}. */
    RangeSettleRequests.Request get(long version, int range, Watcher watcher) throws Exception;
  }

  private final Records requests;

  public RangeSettler(RangeSettleRequests requests) {
    this(
        new Records() {
          @Override
          public void ask(long version, int range) throws Exception {
            requests.ask(version, range);
          }

          @Override
          public RangeSettleRequests.Request get(long version, int range, Watcher watcher)
              throws Exception {
            return requests.get(version, range, watcher);
          }
        });
  }

  RangeSettler(Records requests) {
    this.requests = requests;
  }

  /**
   * Settles {@code ranges} at {@code version}; returns once every one is settled. The wait times
   * out only after {@code timeout} in which no range was settled ({@link StepDeadline}): a large
   * settle that keeps finishing ranges runs as long as it needs.
   *
   * @throws TimeoutException naming the ranges still open after {@code timeout} without progress
   */
  public void settle(long version, Collection<Integer> ranges, Duration timeout) throws Exception {
    settle(version, ranges, new StepDeadline(timeout));
  }

  /** {@link #settle(long, Collection, Duration)} with the deadline given (tests: its clock). */
  void settle(long version, Collection<Integer> ranges, StepDeadline deadline) throws Exception {
    for (int range : ranges) {
      requests.ask(version, range);
    }
    Semaphore changed = new Semaphore(0);
    Watcher wake = event -> changed.release();
    Set<Integer> open = new TreeSet<>(ranges);
    while (true) {
      int before = open.size();
      for (var i = open.iterator(); i.hasNext(); ) {
        RangeSettleRequests.Request r = requests.get(version, i.next(), wake);
        if (r != null && r.settled()) {
          i.remove();
        }
      }
      if (open.isEmpty()) {
        return;
      }
      if (open.size() < before) {
        deadline.progressed();
      }
      long left = deadline.remainingNanos();
      if (left <= 0) {
        throw new TimeoutException(
            "ranges " + open + " not settled at ring version " + version + " within " + deadline);
      }
      // A watch fires on each answer; the bound covers a watch lost with a session.
      changed.tryAcquire(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
      changed.drainPermits();
    }
  }
}
