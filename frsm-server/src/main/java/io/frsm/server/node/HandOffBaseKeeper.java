package io.frsm.server.node;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.lsm.LsmEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The driver's side of the durable hand-off base (docs/PROTOCOL.md "The durable base"): on {@link
 * Effect.BaseReached} the store is flushed and, once the flush is durable, the record written (off
 * the core's thread); on {@link Effect.BaseDropped} the record is deleted at once, on the core's
 * thread, before the step's later effects — and a record still waiting for its flush is never
 * written. At start, {@link #restorable} reads the records back for the core.
 */
final class HandOffBaseKeeper implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(HandOffBaseKeeper.class.getName());

  private final HandOffBaseRecords records;
  private final Supplier<CompletableFuture<Void>> flush;
  private final Supplier<Boolean> storeLostCells;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "frsm-handoff-base");
            t.setDaemon(true);
            return t;
          });

  /** Per range: bumped by every reach and drop, so a record written late checks it is current. */
  private final Map<Integer, Long> epochs = new HashMap<>(); // guarded by this

  private long written;

  /** Bases waiting for a flush that has not started yet. */
  private List<java.util.function.Consumer<Throwable>> afterNextFlush =
      new java.util.ArrayList<>(); // guarded by this

  private boolean flushing; // guarded by this

  /** Records found at start but not trusted because the store had lost cells. */
  private long droppedForLostCells;

  HandOffBaseKeeper(HandOffBaseRecords records, LsmEngine engine) {
    this(records, engine::flush, () -> !engine.quarantinedIntervals().isEmpty());
  }

  /**
   * @param flush flushes every cell written so far, completing once they are durable
   * @param storeLostCells whether the store holds quarantined (lost) cells: then no record is
   *     trusted at start, since cells a base relies on may be among them
   */
  HandOffBaseKeeper(
      HandOffBaseRecords records,
      Supplier<CompletableFuture<Void>> flush,
      Supplier<Boolean> storeLostCells) {
    this.records = records;
    this.flush = flush;
    this.storeLostCells = storeLostCells;
  }

  /**
   * The records to feed the core before anything else: every trusted one, or none (each deleted) if
   * the store lost cells.
   */
  List<Input.RestoreBase> restorable() throws IOException {
    List<Input.RestoreBase> found = records.load();
    if (found.isEmpty() || !storeLostCells.get()) {
      return found;
    }
    LOG.log(
        Level.WARNING,
        "the store has quarantined cells: {0} hand-off base record(s) dropped, those ranges will"
            + " be scanned",
        found.size());
    for (Input.RestoreBase r : found) {
      records.drop(r.range());
    }
    synchronized (this) {
      droppedForLostCells += found.size();
    }
    return List.of();
  }

  /**
   * {@link Effect.BaseReached}: the record once a flush that started after this call completed,
   * unless dropped meanwhile. Flushes are coalesced: one at a time, and every base reached while
   * one runs waits for the next, started when it completes (a flush per shipment would freeze a
   * memtable per range handed off at once, and the engine stalls writes past a few frozen ones).
   */
  void reached(Effect.BaseReached b) {
    long epoch;
    synchronized (this) {
      epoch = epochs.merge(b.range(), 1L, Long::sum);
      afterNextFlush.add(error -> recordIfCurrent(b, epoch, error));
      if (!flushing) {
        startFlush();
      }
    }
  }

  /** Starts a flush for every base waiting for one. REQUIRES: holding this, none in flight. */
  private void startFlush() {
    List<java.util.function.Consumer<Throwable>> batch = afterNextFlush;
    afterNextFlush = new java.util.ArrayList<>();
    flushing = true;
    CompletableFuture<Void> flushed;
    try {
      flushed = flush.get();
    } catch (RuntimeException e) {
      flushed = CompletableFuture.failedFuture(e); // e.g. the engine closing: no record
    }
    flushed.whenCompleteAsync(
        (done, error) -> {
          for (java.util.function.Consumer<Throwable> c : batch) {
            c.accept(error);
          }
          synchronized (this) {
            flushing = false;
            if (!afterNextFlush.isEmpty()) {
              startFlush();
            }
            notifyAll(); // awaitRecorded
          }
        },
        writer);
  }

  private void recordIfCurrent(Effect.BaseReached b, long epoch, Throwable flushError) {
    if (flushError != null) {
      LOG.log(
          Level.WARNING,
          "range {0}: the flush for its hand-off base failed, no record (a restart scans it): {1}",
          b.range(),
          flushError.toString());
      return;
    }
    synchronized (this) {
      if (epochs.get(b.range()) != epoch) {
        return; // dropped (or reached again) since: this record no longer holds
      }
      try {
        records.record(b.range(), b.term(), b.ringVersion(), b.entry());
        written++;
      } catch (IOException e) {
        LOG.log(
            Level.WARNING,
            "range {0}: hand-off base record not written (a restart scans it): {1}",
            b.range(),
            e.toString());
      }
    }
  }

  /**
   * {@link Effect.BaseDropped}: the record goes now. A failure is a storage failure: it is thrown
   * (fatal), since a record left behind could be trusted after a restart.
   */
  synchronized void dropped(int range) {
    epochs.merge(range, 1L, Long::sum);
    try {
      records.drop(range);
    } catch (IOException e) {
      throw new UncheckedIOException("hand-off base record of range " + range + " not deleted", e);
    }
  }

  /**
   * Waits at most {@code bound} until every base reached so far has its record written (or will
   * never have one: its flush or write failed, or it was dropped). A graceful stop calls it after
   * its hand-offs, before the engine closes: a record still waiting then is never written, and that
   * range scans when the node comes back. Returns whether nothing was left waiting.
   */
  synchronized boolean awaitRecorded(java.time.Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (flushing || !afterNextFlush.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Whether a flush for some base is in flight (tests). */
  synchronized boolean flushing() {
    return flushing;
  }

  synchronized long written() {
    return written;
  }

  /**
   * Records found at start and not trusted: damaged, foreign or misnamed, or the store had lost
   * cells. Each was deleted and its range scans.
   */
  synchronized long untrusted() {
    return records.untrusted() + droppedForLostCells;
  }

  @Override
  public void close() {
    writer.shutdownNow();
  }
}
