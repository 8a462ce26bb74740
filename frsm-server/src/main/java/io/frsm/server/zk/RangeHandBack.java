package io.frsm.server.zk;

import io.frsm.consensus.core.HandOffShipment;
import java.time.Duration;
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
 * successor scans, as without hand-off, and no lease is spent waiting.
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

  private final RangeLeadership.Sink sink;
  private final Duration bound;
  private final Consumer<Runnable> post;
  private final LongSupplier nanoClock;

  /** Ranges whose hand-off is under way, with the grant it hands off. */
  private final Map<Integer, TermGrant> underWay = new HashMap<>();

  private final LongAdder begun = new LongAdder();
  private final LongAdder shipped = new LongAdder();
  private final LongAdder shippedKeys = new LongAdder();
  private final LongAdder acknowledged = new LongAdder();
  private final LongAdder noShipment = new LongAdder();
  private final LongAdder notAcknowledged = new LongAdder();
  private final LongAdder declined = new LongAdder();
  private final LongAdder drainNanos = new LongAdder();
  private final LongAccumulator drainNanosMax = new LongAccumulator(Math::max, 0);

  RangeHandBack(
      int self,
      HeldTerms held,
      RangeLeadership.Sink sink,
      Duration bound,
      Consumer<Runnable> post) {
    this(self, held::grant, sink, bound, post, System::nanoTime);
  }

  /** {@code nanoClock}: a monotonic clock timing the drains. */
  RangeHandBack(
      int self,
      IntFunction<TermGrant> held,
      RangeLeadership.Sink sink,
      Duration bound,
      Consumer<Runnable> post,
      LongSupplier nanoClock) {
    this.self = self;
    this.held = held;
    this.sink = sink;
    this.bound = bound;
    this.post = post;
    this.nanoClock = nanoClock;
  }

  /** Whether the range's hand-off is under way: the latch stays until it ends. */
  boolean underWay(int range) {
    return underWay.containsKey(range);
  }

  /**
   * Hands {@code range} to {@code successor} with a shipment, then runs {@code release} (the plain
   * hand-over: release through the core, mark, leave the latch) on the event thread. Returns false,
   * starting nothing, if hand-offs are off or the node holds no term of the range: the caller
   * releases at once.
   */
  boolean begin(int range, int successor, String why, Runnable release) {
    TermGrant g = held.apply(range);
    if (!sink.handsOff() || g == null || successor < 0 || successor == self) {
      return false;
    }
    if (underWay.containsKey(range)) {
      return true;
    }
    underWay.put(range, g);
    begun.increment();
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} hands range {1} off in term {2} to node {3} ({4}): draining",
        self,
        range,
        g.term(),
        successor,
        why);
    long startNanos = nanoClock.getAsLong();
    CompletableFuture<HandOffShipment> drained;
    try {
      drained = sink.handOff(range, g.term());
    } catch (RuntimeException e) {
      drained = CompletableFuture.failedFuture(e);
    }
    // Completed here after the bound (the core's pending answer is then forgotten too).
    drained
        .completeOnTimeout(null, bound.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (s, error) ->
                post.accept(
                    () -> drained(range, g, successor, s, declinedBy(error), startNanos, release)));
    return true;
  }

  private static HandOffDeclined declinedBy(Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof HandOffDeclined d ? d : null;
  }

  /**
   * The drain ended ({@code s}), was declined ({@code declinedBy}) or given up (both null):
   * deliver, or release plainly.
   */
  private void drained(
      int range,
      TermGrant g,
      int successor,
      HandOffShipment s,
      HandOffDeclined declinedBy,
      long startNanos,
      Runnable release) {
    if (underWay.get(range) != g) {
      return;
    }
    if (held.apply(range) != g) {
      underWay.remove(range); // the term ended meanwhile (lost lease or latch): nothing to release
      return;
    }
    if (declinedBy != null) {
      declined.increment();
      LOG.log(
          System.Logger.Level.INFO,
          "node {0}: range {1} wrote {2} keys in term {3}, too many to drain; released plainly,"
              + " node {4} scans",
          self,
          range,
          declinedBy.writtenKeys(),
          g.term(),
          successor);
      finish(range, release);
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
          successor);
      finish(range, release);
      return;
    }
    long took = Math.max(0, nanoClock.getAsLong() - startNanos);
    drainNanos.add(took);
    drainNanosMax.accumulate(took);
    shipped.increment();
    shippedKeys.add(s.entries().size());
    CompletableFuture<Boolean> delivered;
    try {
      delivered = sink.ship(successor, s);
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
                            successor,
                            range,
                            s.entries().size());
                      }
                      if (underWay.get(range) == g) {
                        if (held.apply(range) == g) {
                          finish(range, release);
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

  /** The node stops or the range's term ended another way: forget the hand-off. */
  void forget(int range) {
    underWay.remove(range);
  }

  HandBackCounts counts() {
    return new HandBackCounts(
        begun.sum(),
        shipped.sum(),
        shippedKeys.sum(),
        acknowledged.sum(),
        noShipment.sum(),
        notAcknowledged.sum(),
        declined.sum(),
        drainNanos.sum(),
        drainNanosMax.get());
  }
}
