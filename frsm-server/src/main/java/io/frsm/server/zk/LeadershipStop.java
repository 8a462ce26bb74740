package io.frsm.server.zk;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The graceful stop of a node's range leadership, as a sequence (docs/PROTOCOL.md "A graceful stop
 * hands off"): the node drops out of the running for every range it replicates — in its own view
 * and its ready marker, as a step-down does for one range — so that each range it holds goes the
 * step-down way (with {@code consensus.handOff}, a drain and a shipment to its successor, else a
 * plain release) and its successor competes; the stop waits for those hand-offs at most the stop
 * wait ({@link HandOffLimits#stopWait}), then releases the rest plainly and ends the event thread.
 * The node waits for the base records of its shipments afterwards (their flush is the engine's).
 *
 * <p>It counts how the ranges held at the stop were given up ({@code frsm.shutdown.ranges}) and
 * holds the invariant that no term is held once the stop is over. {@link RangeLeadership} keeps the
 * state the stop acts on and lends it through {@link Leadership}; {@link StopHandOver} keeps the
 * stop's bookkeeping.
 */
final class LeadershipStop {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  /** How long the stop waits for the event thread to release what is left and end. */
  private static final Duration END_WAIT = Duration.ofSeconds(10);

  /** What the stop does to the node's leadership: on the event thread, but {@link #termsHeld}. */
  interface Leadership {
    /** The ranges whose latch this node joined and whose term it holds, with that term. */
    Map<Integer, Long> heldTerms();

    /**
     * Counts this node out of every range it replicates, in its view and its ready marker, so that
     * each range it holds is handed over as on a step-down (the stop has begun by then).
     */
    void dropOut();

    /** Whether a hand-off of {@code range} is under way. */
    boolean handingOff(int range);

    /** Whether the core shipped {@code range}'s {@code term} to a successor. */
    boolean shipped(int range, long term);

    /**
     * Leaves every latch still joined plainly (a drain under way ends with that release), then ends
     * the event thread: the events queued after this one do nothing.
     */
    void releaseRest();

    /** Terms this node holds now. Any thread. */
    int termsHeld();
  }

  private final int self;
  private final Duration handOffWait;
  private final Consumer<Runnable> eventThread;
  private final Leadership leadership;

  /** The stop's hand-over once it began (event thread); null before. */
  private StopHandOver handOver;

  /** Whether the stop hands ranges off (a nonzero wait), or releases them plainly. */
  private boolean handsOff;

  /** Ranges held at a graceful stop that were handed off, and those released plainly. */
  private volatile long handedOff;

  private volatile long released;

  /**
   * @param handOffWait how long a stop that hands over waits for its hand-offs (zero without
   *     hand-offs: every range is released plainly)
   * @param eventThread runs a task on the leadership's event thread, then {@link #afterEvent}
   */
  LeadershipStop(
      int self, Duration handOffWait, Consumer<Runnable> eventThread, Leadership leadership) {
    this.self = self;
    this.handOffWait = handOffWait;
    this.eventThread = eventThread;
    this.leadership = leadership;
  }

  /** Whether the stop began: the node competes for no range any more. Event thread. */
  boolean begun() {
    return handOver != null;
  }

  /**
   * Whether a range given up now may be handed off: always before the stop, during it only if the
   * stop waits for hand-offs. Event thread.
   */
  boolean mayHandOff() {
    return handOver == null || handsOff;
  }

  /**
   * After every event while the node stops (event thread): whether the stop's hand-offs are all
   * over.
   */
  void afterEvent() {
    if (handOver != null) {
      handOver.check(leadership::handingOff);
    }
  }

  /**
   * Runs the stop; returns once the leadership is shut down ({@code shutDown}: its threads and
   * ZooKeeper calls).
   *
   * @param handOverRanges false: release every range plainly at once (the node's core failed: it
   *     ships nothing)
   * @throws IllegalStateException if a term is still held after the event thread ended
   */
  void run(boolean handOverRanges, Runnable shutDown) {
    Duration wait = handOverRanges ? handOffWait : Duration.ZERO;
    long began = System.nanoTime();
    CompletableFuture<Void> handedOver = new CompletableFuture<>();
    eventThread.accept(() -> begin(wait, handedOver));
    try {
      handedOver.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // What is still under way is released plainly below: a stop never waits longer.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.log(System.Logger.Level.WARNING, "node " + self + ": stop hand-over failed", e);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    eventThread.accept(
        () -> {
          end(began);
          leadership.releaseRest();
          done.complete(null);
        });
    try {
      done.get(END_WAIT.toNanos(), TimeUnit.NANOSECONDS);
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "node " + self + ": leadership did not stop cleanly", e);
    }
    shutDown.run();
    if (done.isDone() && leadership.termsHeld() != 0) {
      // Every latch was left on purpose, each release taking its term out of the held ones.
      throw new IllegalStateException(
          "node "
              + self
              + " ended its leadership still holding "
              + leadership.termsHeld()
              + " term(s)");
    }
  }

  /**
   * The stop begins (event thread): the node counts itself out of every range it replicates, so
   * that each range it holds is handed over as on a step-down and its successor competes; {@code
   * handedOver} completes once none of those hand-offs is under way.
   */
  private void begin(Duration wait, CompletableFuture<Void> handedOver) {
    Map<Integer, Long> terms = leadership.heldTerms();
    handOver = new StopHandOver(terms, handedOver);
    handsOff = !wait.isZero();
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} stopping: hands over the {1} range(s) it holds {2}{3}",
        self,
        terms.size(),
        terms.keySet(),
        wait.isZero() ? ", plainly" : ", waiting at most " + wait + " for their hand-offs");
    leadership.dropOut();
  }

  /** The stop's wait is over (event thread): counts and logs how its ranges were given up. */
  private void end(long beganNanos) {
    if (handOver == null) {
      return; // the stop never began (the event thread was gone)
    }
    StopHandOver.Outcome o = handOver.outcome(leadership::shipped);
    handedOff += o.handedOff();
    released += o.released();
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} stopping: {1} range(s) handed off, {2} released plainly (their successors scan),"
            + " after {3} ms",
        self,
        o.handedOff(),
        o.released(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beganNanos));
  }

  /** Ranges a graceful stop handed off: the core shipped the term it held to a successor. */
  long handedOff() {
    return handedOff;
  }

  /** Ranges held at a graceful stop that were released plainly: their successors scan. */
  long released() {
    return released;
  }
}
