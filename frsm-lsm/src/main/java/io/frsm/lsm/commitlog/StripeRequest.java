package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
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
  static final class Append extends StripeRequest<Void> {
    private Cell cell;
    final int payloadBytes;

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
  }

  /**
   * Close the current segment once everything queued before this request is synced. Completes with
   * the stripe's checkpoint id: every record queued before it is in a segment below that id.
   */
  static final class Rotate extends StripeRequest<Long> {}
}
