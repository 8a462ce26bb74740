package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * Work for a stripe's writer thread, and at the same time the future its caller waits on and the
 * node of the stripe's {@link StripeQueue}: one allocation per append instead of three (future,
 * request, queue node) on the synced-put hot path.
 *
 * @param <T> what the future completes with
 */
abstract sealed class StripeRequest<T> extends CompletableFuture<T>
    permits StripeRequest.Append, StripeRequest.Rotate {

  /**
   * The next request: older while queued (a stack), newer once drained (FIFO). Written by the
   * producer before the publishing CAS and read by the writer after its draining swap, so the
   * {@link StripeQueue}'s atomic reference orders it; afterwards only the writer thread touches it.
   */
  StripeRequest<?> next;

  /**
   * A record to write, or a barrier ({@code cell == null}): completes once everything queued before
   * it is synced, without writing anything itself.
   */
  static final class Append extends StripeRequest<Void> implements CommitLog.PendingRecord {
    private static final System.Logger LOG = System.getLogger(CommitLog.class.getName());
    private static final VarHandle LISTENER;

    /** In {@link #listener} once the listener ran or the record completed without one. */
    private static final CommitLog.Synced FIRED = failure -> {};

    static {
      try {
        LISTENER =
            MethodHandles.lookup().findVarHandle(Append.class, "listener", CommitLog.Synced.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private Cell cell;
    final int payloadBytes;

    /**
     * Null until {@link #whenSynced} or the completion, whichever comes first; {@link #FIRED} once
     * the completion took it. Set with CAS on both sides, so the listener runs exactly once.
     */
    @SuppressWarnings("unused") // through LISTENER
    private volatile CommitLog.Synced listener;

    /** What the record failed with (null: synced); read only after seeing {@link #FIRED}. */
    private Throwable failure;

    Append(Cell cell, int payloadBytes) {
      this.cell = cell;
      this.payloadBytes = payloadBytes;
    }

    static Append barrier() {
      return new Append(null, 0);
    }

    Cell cell() {
      return cell;
    }

    boolean isBarrier() {
      return payloadBytes == 0;
    }

    /** Drops the references a completed future must not keep alive (the caller may hold it). */
    void release() {
      cell = null;
      next = null;
    }

    @Override
    public void whenSynced(CommitLog.Synced synced) {
      if (!LISTENER.compareAndSet(this, null, synced)) {
        // Completed already: failure was written before FIRED was, so it is visible here.
        notify(synced, failure);
      }
    }

    @Override
    public boolean complete(Void value) {
      boolean now = super.complete(value);
      if (now) {
        fire(null);
      }
      return now;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
      boolean now = super.completeExceptionally(failure);
      if (now) {
        fire(failure);
      }
      return now;
    }

    private void fire(Throwable failure) {
      this.failure = failure; // before the volatile write of FIRED, which publishes it
      CommitLog.Synced waiting = (CommitLog.Synced) LISTENER.getAndSet(this, FIRED);
      if (waiting != null) {
        notify(waiting, failure);
      }
    }

    /** Runs a listener; what it throws must not stop the stripe's writer completing the others. */
    private static void notify(CommitLog.Synced synced, Throwable failure) {
      try {
        synced.synced(failure);
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.ERROR, "a commit-log record's listener failed", t);
      }
    }
  }

  /**
   * Close the current segment once everything queued before this request is synced. Completes with
   * the stripe's checkpoint id: every record queued before it is in a segment below that id.
   */
  static final class Rotate extends StripeRequest<Long> {}
}
