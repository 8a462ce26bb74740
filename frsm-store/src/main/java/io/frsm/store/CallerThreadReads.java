package io.frsm.store;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.consensus.core.ReadGate;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Leader-only reads served on the caller's thread, without a hand-off to the node's core thread and
 * back (docs/PROTOCOL.md "Leader-only reads on the caller's thread"). The core tells this gate
 * ({@link io.frsm.consensus.core.NodeCore#publishReadsTo}) which keys are unsettled and until when
 * each range may be served; a read is served here exactly when the core would serve it from its
 * local cell, else the caller submits it to the core as before.
 *
 * <p>A read runs in three steps, in this order, each reading what the core published:
 *
 * <ol>
 *   <li>{@link #begin}: the range is in leader-only mode (term, mode entry) and the key is settled;
 *   <li>the caller reads the local cell from memory ({@link MemoryReads}: the clock cache in a
 *       node; a miss goes to the core);
 *   <li>{@link #finish}: the cell is chosen or absent, and the range is still in the same stretch
 *       of leader-only mode with the lease held at the caller's monotonic clock, read now.
 * </ol>
 *
 * Why the order makes it the core's read: a key becomes unsettled inside the core's step that
 * learns or starts a newer value, before that step's effects (replies) are carried out, so a read
 * invoked after anyone saw the newer value finds the key unsettled in step 1; the key is settled
 * again only after the newer value is visible in the store, so a read that finds it settled reads
 * that value or a later one in step 2. The lease is checked after the cell was read, at the
 * caller's own clock, as the core checks it after its read: the value was current at that instant.
 * A lease lost or released is published before the step's effects too, so no successor that a
 * release mark lets write at once can write before this gate stops serving.
 *
 * <p>Thread-safe: the core's thread publishes, any thread reads. Visibility: publications are
 * volatile writes (a concurrent set, an atomic array) and the store's own writes happen before the
 * core hears they are done, so what a reader finds published implies what it finds stored.
 */
public final class CallerThreadReads implements ReadGate {
  /**
   * What stands in for a cell the memory reads do not hold (distinct from {@code null}, "nothing
   * stored"); compared by identity.
   */
  public static final Cell NOT_IN_MEMORY =
      new Cell(Key.of(new byte[] {0}), io.frsm.cell.Ballot.NONE, null, null, 0);

  /**
   * Reads a key's cell without waiting for a disk: the cell, {@code null} if nothing is stored, or
   * {@link #NOT_IN_MEMORY}. Safe from any thread.
   */
  @FunctionalInterface
  public interface MemoryReads {
    Cell get(Key key);
  }

  private final Placement placement;
  private final MemoryReads memory;
  private final Set<Key> unsettled = ConcurrentHashMap.newKeySet();
  private final AtomicReferenceArray<RangeView> ranges;
  private final LongAdder served = new LongAdder();

  /** A range's published servability. */
  private record RangeView(long term, long modeEntry, long servableUntilMonoNanos) {}

  /** A read between {@link #begin} and {@link #finish}. */
  public static final class Attempt {
    private final int range;
    private final RangeView view;

    private Attempt(int range, RangeView view) {
      this.range = range;
      this.view = view;
    }
  }

  public CallerThreadReads(Placement placement, MemoryReads memory) {
    this.placement = Objects.requireNonNull(placement, "placement");
    this.memory = Objects.requireNonNull(memory, "memory");
    this.ranges = new AtomicReferenceArray<>(placement.rangeCount());
  }

  // ---- ReadGate: the core's thread ---------------------------------------------------------

  @Override
  public void unsettled(Key key) {
    unsettled.add(key);
  }

  @Override
  public void settled(Key key) {
    unsettled.remove(key);
  }

  @Override
  public void range(int range, long term, long modeEntry, long servableUntilMonoNanos) {
    ranges.set(range, new RangeView(term, modeEntry, servableUntilMonoNanos));
  }

  // ---- Readers: any thread -----------------------------------------------------------------

  /**
   * Serves a get of {@code key} here if the core would serve it from its local cell now: the
   * answer, or null (submit the read to the core). Reads the cell from memory only ({@link
   * MemoryReads}): the caller may be an event loop. {@code nowMonoNanos} supplies the caller's
   * monotonic clock ({@link System#nanoTime}), read after the cell.
   */
  public Outcome tryRead(Key key, java.util.function.LongSupplier nowMonoNanos) {
    Attempt attempt = begin(key);
    if (attempt == null) {
      return null;
    }
    Cell cell = memory.get(key);
    if (cell == NOT_IN_MEMORY) {
      return null; // the core reads it from the store (and caches it for the next read)
    }
    return finish(attempt, cell, nowMonoNanos.getAsLong());
  }

  /** Step 1: null if the key's range is not in leader-only mode or the key is unsettled. */
  public Attempt begin(Key key) {
    if (RangeTerm.isReserved(key)) {
      return null; // not a client key: the core refuses it
    }
    int range = placement.rangeOf(key);
    RangeView view = ranges.get(range);
    if (view == null || view.servableUntilMonoNanos == Long.MIN_VALUE) {
      return null;
    }
    if (unsettled.contains(key)) {
      return null;
    }
    return new Attempt(range, view);
  }

  /**
   * Step 3, after the caller read {@code cell} (null: absent) from the store: the answer, or null
   * if the cell holds an accepted value not known chosen, or the range left that stretch of
   * leader-only mode, or the lease does not hold at {@code nowMonoNanos}.
   */
  public Outcome finish(Attempt attempt, Cell cell, long nowMonoNanos) {
    AcceptedValue accepted = cell == null ? null : cell.accepted();
    if (accepted != null && !accepted.chosen()) {
      return null;
    }
    RangeView now = ranges.get(attempt.range);
    if (now.term != attempt.view.term
        || now.modeEntry != attempt.view.modeEntry
        || !(nowMonoNanos < now.servableUntilMonoNanos)) {
      return null;
    }
    served.increment();
    return Outcome.ReadResult.of(accepted);
  }

  /** Reads served here so far. */
  public long served() {
    return served.sum();
  }

  /** Keys currently unsettled (diagnostics and tests). */
  public int unsettledKeys() {
    return unsettled.size();
  }
}
