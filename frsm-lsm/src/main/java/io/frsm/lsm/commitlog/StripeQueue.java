package io.frsm.lsm.commitlog;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lock-free hand-off from many appending threads to one stripe writer. Producers push onto an
 * intrusive stack with one CAS; the writer takes the whole stack with one swap and reverses it into
 * arrival order. Each group commit thus costs the writer one atomic operation, however many records
 * it holds.
 *
 * <p>Closing swaps in a sentinel: a request pushed afterwards fails at once, so no future is ever
 * stranded between the writer's last drain and its exit.
 */
final class StripeQueue {
  private static final StripeRequest<?> CLOSED = new StripeRequest.Rotate();

  private final AtomicReference<StripeRequest<?>> head = new AtomicReference<>();
  private volatile IOException closedCause;

  /**
   * Enqueues {@code request}, or fails it if the queue is closed.
   *
   * @return true if the queue was empty, so the writer may be parked and must be woken
   */
  boolean push(StripeRequest<?> request) {
    StripeRequest<?> h;
    do {
      h = head.get();
      if (h == CLOSED) {
        request.next = null;
        request.completeExceptionally(closedCause);
        return false;
      }
      request.next = h;
    } while (!head.compareAndSet(h, request));
    return h == null;
  }

  /** Takes every queued request, oldest first; null if none (or closed). Writer thread only. */
  StripeRequest<?> drain() {
    StripeRequest<?> h;
    do {
      h = head.get();
      if (h == null || h == CLOSED) {
        return null;
      }
    } while (!head.compareAndSet(h, null));
    return reverse(h);
  }

  /**
   * Closes the queue: later pushes fail with {@code cause}. Returns what was still queued, oldest
   * first (null if nothing), for the caller to complete or fail.
   */
  StripeRequest<?> close(IOException cause) {
    if (head.get() == CLOSED) {
      return null;
    }
    closedCause = cause; // volatile write before the swap: a push that sees CLOSED sees the cause
    StripeRequest<?> h = head.getAndSet(CLOSED);
    return h == CLOSED ? null : reverse(h);
  }

  private static StripeRequest<?> reverse(StripeRequest<?> h) {
    StripeRequest<?> reversed = null;
    while (h != null) {
      StripeRequest<?> older = h.next;
      h.next = reversed;
      reversed = h;
      h = older;
    }
    return reversed;
  }
}
