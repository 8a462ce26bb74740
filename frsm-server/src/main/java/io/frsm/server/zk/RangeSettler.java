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
  private final RangeSettleRequests requests;

  public RangeSettler(RangeSettleRequests requests) {
    this.requests = requests;
  }

  /**
   * Settles {@code ranges} at {@code version}; returns once every one is settled.
   *
   * @throws TimeoutException naming the ranges still open after {@code timeout}
   */
  public void settle(long version, Collection<Integer> ranges, Duration timeout) throws Exception {
    for (int range : ranges) {
      requests.ask(version, range);
    }
    Semaphore changed = new Semaphore(0);
    Watcher wake = event -> changed.release();
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<Integer> open = new TreeSet<>(ranges);
    while (true) {
      for (var i = open.iterator(); i.hasNext(); ) {
        RangeSettleRequests.Request r = requests.get(version, i.next(), wake);
        if (r != null && r.settled()) {
          i.remove();
        }
      }
      if (open.isEmpty()) {
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new TimeoutException(
            "ranges " + open + " not settled at ring version " + version + " within " + timeout);
      }
      // A watch fires on each answer; the bound covers a watch lost with a session.
      changed.tryAcquire(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
      changed.drainPermits();
    }
  }
}
