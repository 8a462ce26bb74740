package io.frsm.server.zk;

import io.frsm.consensus.core.HandOffShipment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * A hand-over on purpose with a shipment instead of a plain release (docs/PROTOCOL.md "Hand-off
 * instead of a scan", steps 2–6), when the node knows the successor: the node keeps its latch and
 * keeps renewing its lease while the core drains ({@code Input.HandOff}); the core's shipment goes
 * to the successor; once the successor acknowledged it — or did not within the bound — the node
 * releases as for any hand-over ({@code ReleaseLease}, the mark if clean, then it leaves the
 * latch).
 *
 * <p>A core that wrote more keys in the term than a drain takes declines at once ({@link
 * HandOffDeclined}): nothing stopped there, and the range is released plainly at once — the
 * successor scans, as without hand-off, and no lease is spent waiting. What a drain takes is the
 * lower of the per-range cap and what is left of the node-wide {@link DrainBudget}. A hand-back to
 * a returning node whose interim term lasted longer than {@link HandOffLimits#maxAbsence} is
 * declined here, before the core is asked.
 *
 * <p>Bounded: a drain that has not shipped within one lease (its settles need a quorum the node may
 * not reach) is given up and the range released plainly; the successor then scans. A delivery that
 * is not acknowledged within one lease is given up too: the release follows anyway. Both are safe
 * by construction: the successor enters leader-only mode without its scan only by an import the
 * core accepted (term chain and base checked), so a missing or late shipment only leaves the scan
 * to run, and a shipment that arrives after the successor's grant still ends the scan.
 *
 * <p>The leadership's event thread only; futures complete elsewhere and come back through {@code
 * post}.
 */
final class RangeHandBack {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  private final int self;

  /** The grant of a range's term this node holds now, or null ({@link HeldTerms#grant}). */
  private final IntFunction<TermGrant> held;

  private final HandOffSink sink;
  private final Duration bound;
  private final Consumer<Runnable> post;
  private final LongSupplier nanoClock;
  private final HandOffLimits limits;
  private final DrainBudget budget;

  /** One range's hand-off, from {@link #begin} until it released or ended another way. */
  private static final class Run {
    final int range;
    final TermGrant grant;
    final int successor;
    final Runnable release;
    DrainBudget.Share share;
    long startNanos;

    Run(int range, TermGrant grant, int successor, Runnable release) {
      this.range = range;
      this.grant = grant;
      this.successor = successor;
      this.release = release;
    }
  }

  /** Ranges whose hand-off is under way (waiting to ask, draining, or delivering). */
  private final Map<Integer, Run> underWay = new HashMap<>();

  /** Hand-offs waiting for asks outstanding to be answered ({@link DrainBudget#mustWait}). */
  private final Deque<Run> waiting = new ArrayDeque<>();

  /** Per range, the term of its newest shipment (a graceful stop counts what it handed off). */
  private final Map<Integer, Long> shippedTerms = new HashMap<>();

  private final LongAdder begun = new LongAdder();
  private final LongAdder shipped = new LongAdder();
  private final LongAdder shippedKeys = new LongAdder();
  private final LongAdder settledKeys = new LongAdder();
  private final LongAdder acknowledged = new LongAdder();
  private final LongAdder noShipment = new LongAdder();
  private final LongAdder notAcknowledged = new LongAdder();
  private final LongAdder declined = new LongAdder();
  private final LongAdder declinedBudget = new LongAdder();
  private final LongAdder declinedAbsence = new LongAdder();
  private final LongAdder drainNanos = new LongAdder();
  private final LongAccumulator drainNanosMax = new LongAccumulator(Math::max, 0);

  RangeHandBack(
      int self, HeldTerms held, HandOffSink sink, Duration bound, Consumer<Runnable> post) {
    this(self, held::grant, sink, bound, post, System::nanoTime);
  }

  /** {@code nanoClock}: a monotonic clock timing the drains. */
  RangeHandBack(
      int self,
      IntFunction<TermGrant> held,
      HandOffSink sink,
      Duration bound,
      Consumer<Runnable> post,
      LongSupplier nanoClock) {
    this.self = self;
    this.held = held;
    this.sink = sink;
    this.bound = bound;
    this.post = post;
    this.nanoClock = nanoClock;
    this.limits = sink.handOffLimits();
    this.budget = new DrainBudget(limits.drainBudgetKeys(), limits.maxKeys());
  }

  /** Whether the range's hand-off is under way: the latch stays until it ends. */
  boolean underWay(int range) {
    return underWay.containsKey(range);
  }

  /**
   * Hands {@code range} to {@code successor} with a shipment, then runs {@code release} (the plain
   * hand-over: release through the core, mark, leave the latch) on the event thread. Returns false,
   * starting nothing, if hand-offs are off, the node holds no term of the range, or — {@code
   * returning}: a hand-back to a node that comes back, not a step-down — the term is older than the
   * absence limit: the caller releases at once.
   */
  boolean begin(int range, int successor, boolean returning, String why, Runnable release) {
    TermGrant g = held.apply(range);
    if (!sink.handsOff() || g == null || successor < 0 || successor == self) {
      return false;
    }
    if (underWay.containsKey(range)) {
      return true;
    }
    long lasted = nanoClock.getAsLong() - g.grantedAtNanos();
    if (returning && lasted > limits.maxAbsence().toNanos()) {
      declinedAbsence.increment();
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: range {1} held in term {2} for {3} s, longer than the absence limit {4};"
              + " released plainly, node {5} scans",
          self,
          range,
          g.term(),
          lasted / 1_000_000_000L,
          limits.maxAbsence(),
          successor);
      return false;
    }
    Run run = new Run(range, g, successor, release);
    underWay.put(range, run);
    begun.increment();
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} hands range {1} off in term {2} to node {3} ({4}): draining",
        self,
        range,
        g.term(),
        successor,
        why);
    if (budget.mustWait()) {
      waiting.add(run);
    } else {
      ask(run);
    }
    return true;
  }

  /** Asks the core to drain with what is left of the budget as the cap. */
  private void ask(Run run) {
    run.share = budget.take();
    run.startNanos = nanoClock.getAsLong();
    DrainBudget.Share share = run.share;
    CompletableFuture<HandOffShipment> drained;
    try {
      drained =
          sink.handOff(
              run.range,
              run.grant.term(),
              share.cap(),
              keys ->
                  post.accept(
                      () -> {
                        budget.begun(share, keys);
                        settledKeys.add(keys);
                        askWaiting();
                      }));
    } catch (RuntimeException e) {
      drained = CompletableFuture.failedFuture(e);
    }
    // Completed here after the bound (the core's pending answer is then forgotten too).
    drained
        .completeOnTimeout(null, bound.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((s, error) -> post.accept(() -> drained(run, s, declinedBy(error))));
  }

  /** Asks those waiting, as far as the budget lets them. */
  private void askWaiting() {
    while (!waiting.isEmpty() && !budget.mustWait()) {
      Run run = waiting.poll();
      if (underWay.get(run.range) != run) {
        continue; // forgotten meanwhile
      }
      if (held.apply(run.range) != run.grant) {
        underWay.remove(run.range); // the term ended meanwhile: nothing to release
        continue;
      }
      ask(run);
    }
  }

  private static HandOffDeclined declinedBy(Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof HandOffDeclined d ? d : null;
  }

  /**
   * The drain ended ({@code s}), was declined ({@code declinedBy}) or given up (both null): its
   * budget comes back; deliver, or release plainly.
   */
  private void drained(Run run, HandOffShipment s, HandOffDeclined declinedBy) {
    budget.giveBack(run.share);
    askWaiting();
    int range = run.range;
    if (underWay.get(range) != run) {
      return;
    }
    if (held.apply(range) != run.grant) {
      underWay.remove(range); // the term ended meanwhile (lost lease or latch): nothing to release
      return;
    }
    if (declinedBy != null) {
      boolean overCap = declinedBy.writtenKeys() > limits.maxKeys();
      (overCap ? declined : declinedBudget).increment();
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: range {1} wrote {2} keys in term {3}, more than {4}; released plainly,"
              + " node {5} scans",
          self,
          range,
          declinedBy.writtenKeys(),
          run.grant.term(),
          overCap ? "a drain takes" : "the node's drain budget has left (" + run.share.cap() + ")",
          run.successor);
      finish(range, run.release);
      return;
    }
    if (s == null) {
      noShipment.increment();
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: no shipment of range {1} within {2}; released plainly, node {3} scans",
          self,
          range,
          bound,
          run.successor);
      finish(range, run.release);
      return;
    }
    long took = Math.max(0, nanoClock.getAsLong() - run.startNanos);
    drainNanos.add(took);
    drainNanosMax.accumulate(took);
    shipped.increment();
    shippedTerms.put(range, run.grant.term());
    shippedKeys.add(s.entries().size());
    CompletableFuture<Boolean> delivered;
    try {
      delivered = sink.ship(run.successor, s);
    } catch (RuntimeException e) {
      delivered = CompletableFuture.completedFuture(false);
    }
    delivered
        .copy()
        .completeOnTimeout(false, bound.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (ok, error) ->
                post.accept(
                    () -> {
                      if (error == null && Boolean.TRUE.equals(ok)) {
                        acknowledged.increment();
                      } else {
                        notAcknowledged.increment();
                        LOG.log(
                            System.Logger.Level.INFO,
                            "node {0}: node {1} did not acknowledge the shipment of range {2}"
                                + " ({3} keys); it scans",
                            self,
                            run.successor,
                            range,
                            s.entries().size());
                      }
                      if (underWay.get(range) == run) {
                        if (held.apply(range) == run.grant) {
                          finish(range, run.release);
                        } else {
                          underWay.remove(range); // the term ended another way meanwhile
                        }
                      }
                    }));
  }

  private void finish(int range, Runnable release) {
    underWay.remove(range);
    release.run();
  }

  /**
   * The node stops or the range's term ended another way: forget the hand-off; its budget comes
   * back now (the core's drain ends with the plain release that follows).
   */
  void forget(int range) {
    Run run = underWay.remove(range);
    if (run != null) {
      waiting.remove(run);
      if (run.share != null) {
        budget.giveBack(run.share);
      }
      askWaiting();
    }
  }

  /** Whether the core shipped {@code range}'s term {@code term} to a successor. */
  boolean shipped(int range, long term) {
    Long t = shippedTerms.get(range);
    return t != null && t == term;
  }

  /** Keys the node's drains hold of the budget now (asked or draining). */
  int drainBudgetInUse() {
    return budget.reservedKeys();
  }

  HandBackCounts counts() {
    return new HandBackCounts(
        begun.sum(),
        shipped.sum(),
        shippedKeys.sum(),
        settledKeys.sum(),
        acknowledged.sum(),
        noShipment.sum(),
        notAcknowledged.sum(),
        declined.sum(),
        declinedBudget.sum(),
        declinedAbsence.sum(),
        drainNanos.sum(),
        drainNanosMax.get());
  }
}
