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

    /**
     * In {@link #listener} once the record completed: which way it went. The one completion that
     * swaps it in wins; a success shares {@link #SYNCED}, a failure (rare) gets its own.
     */
    private static final class Fired implements CommitLog.Synced {
      final Throwable failure;

      Fired(Throwable failure) {
        this.failure = failure;
      }

      @Override
      public void synced(Throwable ignored) {}
    }

    private static final Fired SYNCED = new Fired(null);

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
     * Null until {@link #whenSynced} or the completion, whichever comes first; a {@link Fired} once
     * the record completed. Set with CAS on both sides, so the listener runs exactly once. The
     * completion swaps its {@link Fired} in before it completes the future: whoever sees the future
     * done and then calls {@link #whenSynced} is told at once, on its own thread, as promised.
     */
    @SuppressWarnings("unused") // through LISTENER
    private volatile CommitLog.Synced listener;

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
        Object now = LISTENER.getVolatile(this);
        if (!(now instanceof Fired fired)) {
          throw new IllegalStateException("whenSynced called twice on one commit-log record");
        }
        notify(synced, fired.failure);
      }
    }

    @Override
    public boolean complete(Void value) {
      CommitLog.Synced waiting = fire(SYNCED);
      if (waiting == SYNCED) {
        return false;
      }
      boolean now = super.complete(value);
      assert now : "the listener slot decides the one completion";
      if (waiting != null) {
        notify(waiting, null);
      }
      return now;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
      Fired fired = new Fired(failure);
      CommitLog.Synced waiting = fire(fired);
      if (waiting == fired) {
        return false;
      }
      boolean now = super.completeExceptionally(failure);
      assert now : "the listener slot decides the one completion";
      if (waiting != null) {
        notify(waiting, failure);
      }
      return now;
    }

    /**
     * Swaps {@code fired} into the listener slot unless a completion got there first. Returns the
     * listener that was waiting (null if none), or {@code fired} itself if this completion lost.
     */
    private CommitLog.Synced fire(Fired fired) {
      while (true) {
        CommitLog.Synced current = (CommitLog.Synced) LISTENER.getVolatile(this);
        if (current instanceof Fired) {
          return fired;
        }
        if (LISTENER.compareAndSet(this, current, fired)) {
          return current;
        }
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
