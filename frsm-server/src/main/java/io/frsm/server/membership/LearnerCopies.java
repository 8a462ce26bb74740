package io.frsm.server.membership;

import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.StepDeadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.Watcher;

/**
 * The orchestrator's side of the learner step's bulk copies (docs/PROTOCOL.md "Membership changes",
 * "Copy"): asks each incoming node to copy each of its ranges ({@link RangeCopyRequests}) and waits
 * until every copy is done. The incoming node runs them ({@code RangeCopyAgent}), so the
 * orchestrator may run anywhere. A copy recorded as failed, or a request whose record does not
 * decode, stops the change at its learner version ({@link CopyFailedException}): it is never
 * promoted past a copy that did not happen (the settle alone would be correct, but an operator must
 * see that the fast path broke; {@code frsm admin cancel} ends such a change).
 *
 * <p>Not thread-safe: one orchestrator thread uses it.
 */
final class LearnerCopies {
  /** A copy failed for good: the change stays at its learner version until it is cancelled. */
  static final class CopyFailedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    CopyFailedException(String message) {
      super(message);
    }
  }

  private final RangeCopyRequests requests;

  LearnerCopies(RangeCopyRequests requests) {
    this.requests = requests;
  }

  /** {@link MembershipOrchestrator#copyProgress}: the requests of {@code version}. */
  String progress(long version) throws Exception {
    int asked = 0;
    int done = 0;
    StringBuilder problems = new StringBuilder();
    for (RangeCopyRequests.Name n : requests.names(null)) {
      if (n.version() != version) {
        continue;
      }
      asked++;
      try {
        RangeCopyRequests.Request r = requests.get(n.version(), n.node(), n.range(), null);
        if (r != null && r.state() == RangeCopyRequests.State.DONE) {
          done++;
        } else if (r != null && r.state() == RangeCopyRequests.State.FAILED) {
          problems.append("; ").append(r);
        }
      } catch (RangeCopyRequests.Malformed damaged) {
        problems
            .append("; damaged copy request ")
            .append(n)
            .append(": ")
            .append(damaged.getMessage());
      }
    }
    return asked == 0 ? "" : ", copies " + done + "/" + asked + " done" + problems;
  }

  /**
   * Asks the copies of {@code incoming} at {@code version} and waits until all are done.
   *
   * @param stop checked between waits: true ends the wait early (a cancel was asked)
   * @return the ranges whose every incoming learner's copy placed the range's data ({@link
   *     RangeCopyRequests.Request#placedData}), or null if {@code stop} ended the wait
   * @throws CopyFailedException naming the first copy that failed or is damaged
   * @throws TimeoutException naming the copies still open after {@code timeout} in which none ended
   *     ({@link StepDeadline}: each copy done starts it over); the change is retried, the copies
   *     run on
   */
  Set<Integer> copy(
      long version,
      List<MembershipPlan.Incoming> incoming,
      Duration timeout,
      MembershipOrchestrator.Stop stop)
      throws Exception {
    for (MembershipPlan.Incoming in : incoming) {
      requests.ask(version, in.node(), in.range());
    }
    Semaphore changed = new Semaphore(0);
    Watcher wake = event -> changed.release();
    StepDeadline deadline = new StepDeadline(timeout);
    List<MembershipPlan.Incoming> open = new ArrayList<>(incoming);
    Set<Integer> withoutData = new TreeSet<>();
    while (true) {
      int before = open.size();
      for (var i = open.iterator(); i.hasNext(); ) {
        MembershipPlan.Incoming in = i.next();
        RangeCopyRequests.Request r;
        try {
          r = requests.get(version, in.node(), in.range(), wake);
        } catch (RangeCopyRequests.Malformed damaged) {
          throw new CopyFailedException(
              "the copy request of range "
                  + in.range()
                  + " to node "
                  + in.node()
                  + " is damaged ("
                  + damaged.getMessage()
                  + "): the change stops at ring version "
                  + version
                  + "; cancel it (frsm admin cancel)");
        }
        if (r == null) {
          requests.ask(version, in.node(), in.range()); // removed meanwhile: ask again
        } else if (r.state() == RangeCopyRequests.State.DONE) {
          if (!r.placedData()) {
            withoutData.add(in.range());
          }
          i.remove();
        } else if (r.state() == RangeCopyRequests.State.FAILED) {
          throw new CopyFailedException(
              r
                  + ": the change stops at ring version "
                  + version
                  + "; cancel it (frsm admin cancel) and request it again once fixed");
        }
      }
      if (open.isEmpty()) {
        Set<Integer> placed = new TreeSet<>();
        for (MembershipPlan.Incoming in : incoming) {
          placed.add(in.range());
        }
        placed.removeAll(withoutData);
        return placed;
      }
      if (stop.requested()) {
        return null;
      }
      if (open.size() < before) {
        deadline.progressed();
      }
      long left = deadline.remainingNanos();
      if (left <= 0) {
        throw new TimeoutException(
            "copies at ring version " + version + " still running after " + deadline + ": " + open);
      }
      changed.tryAcquire(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
      changed.drainPermits();
    }
  }
}
