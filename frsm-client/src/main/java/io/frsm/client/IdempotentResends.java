package io.frsm.client;

import io.frsm.api.OutcomeUnknownException;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Resends a mutation that carries an idempotency token ({@code FrsmClient.idempotent()}) while its
 * outcome is unknown, at most {@link #MAX_RESENDS} times, with the same token and the resend flag
 * (docs/PROTOCOL.md "Idempotent resends"). The leader answers a resend truthfully: written when the
 * earlier attempt's value is the key's newest, a mismatch only when it definitely did not apply,
 * unknown ("superseded") when the key moved on under another value — then resending cannot help and
 * the unknown outcome is handed on (the session fences the key before its next call, as for any
 * unknown mutation).
 *
 * <p>A resend that was not executed (no leader, a redirect loop) leaves the earlier attempt's
 * outcome unknown: it is never handed on as "not executed".
 */
final class IdempotentResends {
  /** Resends after the first attempt, at most. */
  static final int MAX_RESENDS = 3;

  /** The pause before resend {@code i} is {@code i} times this. */
  static final long BACKOFF_NANOS = 20_000_000L;

  /**
   * No resend is sent later than this after the first attempt was (this client's monotonic clock):
   * past it the outcome stays unknown. It bounds how long after a create's first attempt a resend
   * can reach the cluster, which keeps a resend away from the one case it would answer wrongly: a
   * create that applied, whose key was then deleted and its tombstone dropped, is executed again by
   * a resend that finds nothing. A tombstone is dropped only {@code lsm.tombstoneGracePeriod}
   * (default 24 h) after its purge mark (docs/PROTOCOL.md "Idempotent resends", "The purged-create
   * bound"). With the default timeout (7 s) all {@link #MAX_RESENDS} resends go out within it; a
   * longer per-call timeout gets fewer.
   */
  static final long RESEND_WINDOW_NANOS = 60_000_000_000L;

  /** Runs one attempt of an operation at invocation time {@code invokedAtMicros}. */
  interface Attempt {
    CompletableFuture<ClientOutcome> run(ClientOperation operation, long invokedAtMicros);
  }

  private IdempotentResends() {}

  /** Runs {@code op}, resending it while its outcome is unknown if it carries a token. */
  static CompletableFuture<ClientOutcome> run(
      ClientOperation op,
      long invokedAtMicros,
      Attempt attempt,
      ScheduledExecutorService scheduler) {
    return run(op, invokedAtMicros, attempt, scheduler, System::nanoTime);
  }

  /** As above, on the monotonic clock {@code nanoClock} (tests script it). */
  static CompletableFuture<ClientOutcome> run(
      ClientOperation op,
      long invokedAtMicros,
      Attempt attempt,
      ScheduledExecutorService scheduler,
      LongSupplier nanoClock) {
    long firstSentNanos = nanoClock.getAsLong();
    CompletableFuture<ClientOutcome> first = attempt.run(op, invokedAtMicros);
    if (op.hint() == null) {
      return first;
    }
    Resending resending =
        new Resending(invokedAtMicros, attempt, scheduler, nanoClock, firstSentNanos);
    CompletableFuture<ClientOutcome> result = new CompletableFuture<>();
    first.whenComplete((o, e) -> next(op, resending, 0, o, e, result));
    return result;
  }

  /** What every resend of one mutation shares. */
  private record Resending(
      long invokedAtMicros,
      Attempt attempt,
      ScheduledExecutorService scheduler,
      LongSupplier nanoClock,
      long firstSentNanos) {

    /** Whether a resend may still go out now ({@link #RESEND_WINDOW_NANOS}). */
    boolean withinWindow() {
      return nanoClock.getAsLong() - firstSentNanos < RESEND_WINDOW_NANOS;
    }
  }

  private static void next(
      ClientOperation op,
      Resending r,
      int resends,
      ClientOutcome outcome,
      Throwable error,
      CompletableFuture<ClientOutcome> result) {
    long invokedAtMicros = r.invokedAtMicros();
    String unknown = stillUnknown(outcome, error, resends > 0);
    if (unknown == null) {
      if (error != null) {
        result.completeExceptionally(error);
      } else {
        result.complete(outcome);
      }
      return;
    }
    if (resends >= MAX_RESENDS || unknown.startsWith("superseded")) {
      result.complete(new ClientOutcome.Unknown(unknown));
      return;
    }
    ClientOperation again = asResend(op);
    Runnable resend =
        () -> {
          // Checked as late as the client can: right before the resend is handed to a connection.
          if (!r.withinWindow()) {
            result.complete(
                new ClientOutcome.Unknown(
                    unknown
                        + " (no resend more than "
                        + TimeUnit.NANOSECONDS.toSeconds(RESEND_WINDOW_NANOS)
                        + " s after the first attempt)"));
            return;
          }
          // A fresh τ: the earlier one may be past the cluster's bounded delay by now.
          long tau = invokedAtMicros == 0 ? 0 : Math.max(invokedAtMicros, currentMicros());
          r.attempt()
              .run(again, tau)
              .whenComplete((o, e) -> next(again, r, resends + 1, o, e, result));
        };
    try {
      r.scheduler().schedule(resend, BACKOFF_NANOS * (resends + 1), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      result.complete(new ClientOutcome.Unknown(unknown + " (client closed before a resend)"));
    }
  }

  /**
   * The reason the mutation's outcome is still unknown after this answer, or null if the answer is
   * definite. After a resend ({@code resent}) any answer but a definite one leaves it unknown.
   */
  static String stillUnknown(ClientOutcome outcome, Throwable error, boolean resent) {
    Throwable cause = error == null ? null : SessionAnswers.unwrap(error);
    if (outcome instanceof ClientOutcome.Unknown u) {
      return u.reason();
    }
    if (cause instanceof OutcomeUnknownException u) {
      return String.valueOf(u.getMessage());
    }
    if (!resent) {
      return null;
    }
    if (outcome instanceof ClientOutcome.NotExecuted n) {
      return "a resend was not executed (" + n.reason() + "); the earlier attempt may have applied";
    }
    if (cause != null) { // NotExecutedException, or the client failed the resend
      return "a resend failed (" + cause + "); the earlier attempt may have applied";
    }
    return null;
  }

  /** The same mutation with the same token, marked as a resend. */
  static ClientOperation asResend(ClientOperation op) {
    if (op instanceof ClientOperation.Create c) {
      return new ClientOperation.Create(c.key(), c.value(), c.hint().asResend());
    } else if (op instanceof ClientOperation.Cas c) {
      return new ClientOperation.Cas(c.key(), c.expected(), c.value(), c.hint().asResend());
    } else if (op instanceof ClientOperation.Delete d) {
      return new ClientOperation.Delete(d.key(), d.expected(), d.hint().asResend());
    }
    throw new IllegalArgumentException("only a create, CAS or delete carries a token: " + op);
  }

  private static long currentMicros() {
    return Math.multiplyExact(System.currentTimeMillis(), 1000L);
  }
}
