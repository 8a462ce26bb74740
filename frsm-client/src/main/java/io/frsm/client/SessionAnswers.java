package io.frsm.client;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What {@link KeySessions} reads from answers: which version a call saw chosen, whether a read is
 * older than the one before it, whether a CAS can still succeed, and how a call answered by a read
 * instead ends. Stateless.
 */
final class SessionAnswers {
  private SessionAnswers() {}

  /**
   * A CAS or delete answered by a read: a mismatch with what the read found, or not executed if the
   * read failed — the call itself was never sent, so it did not take effect. The read began after
   * the answer that showed version {@code lost}, so linearizability keeps it from finding an older
   * one, let alone the expected one: checked, as a broken session invariant must not pass as a
   * mismatch.
   */
  static void answerLost(
      CompletableFuture<ClientOutcome> result,
      ClientOperation call,
      Version lost,
      ClientOutcome outcome,
      Throwable error) {
    if (error == null && outcome instanceof ClientOutcome.ReadResult r) {
      if (r.value().isPresent() && r.value().get().version().compareTo(lost) < 0) {
        result.completeExceptionally(
            new IllegalStateException(
                "session invariant broken: a read after version "
                    + lost
                    + " was seen found "
                    + r.value().get().version()));
        return;
      }
      result.complete(new ClientOutcome.Mismatch(expected(call), r.value()));
      return;
    }
    result.complete(
        new ClientOutcome.NotExecuted(
            "the key was already seen at version "
                + lost
                + ", so the call cannot succeed, and the read for its current value failed ("
                + describe(outcome, error)
                + ")"));
  }

  /**
   * The version {@code operation} expects if it is a CAS or delete that cannot succeed because
   * {@code seen}, already chosen, is newer; otherwise null.
   */
  static Version cannotSucceed(ClientOperation operation, Version seen) {
    if (seen == null
        || !(operation instanceof ClientOperation.Cas
            || operation instanceof ClientOperation.Delete)) {
      return null;
    }
    return expected(operation).compareTo(seen) < 0 ? seen : null;
  }

  static Version expected(ClientOperation operation) {
    if (operation instanceof ClientOperation.Cas cas) {
      return cas.expected();
    }
    return ((ClientOperation.Delete) operation).expected();
  }

  /** The chosen version an answer shows, or null (absent, failed, unknown). */
  static Version chosenVersion(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.Written w) {
      return w.version();
    } else if (outcome instanceof ClientOutcome.Deleted d) {
      return d.version();
    } else if (outcome instanceof ClientOutcome.ReadResult r) {
      return r.value().map(Versioned::version).orElse(null);
    } else if (outcome instanceof ClientOutcome.Mismatch m) {
      return m.current().map(Versioned::version).orElse(null);
    } else if (outcome instanceof ClientOutcome.Exists e) {
      return e.current().version();
    }
    return null;
  }

  static Version newer(Version a, Version b) {
    if (a == null) {
      return b;
    }
    return b == null || a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * Whether a read's value may be older than {@code floor}, one read before it. Versions only grow
   * over a key's history (a create's epoch is above every one before it), so two present values are
   * ordered by version; absent against present could be either way round.
   */
  static boolean olderThan(Optional<Versioned> value, Optional<Versioned> floor) {
    if (value.isPresent() && floor.isPresent()) {
      return value.get().version().compareTo(floor.get().version()) < 0;
    }
    return value.isPresent() != floor.isPresent();
  }

  static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  static String describe(ClientOutcome outcome, Throwable error) {
    if (error != null) {
      return unwrap(error).getMessage();
    }
    return outcome instanceof ClientOutcome.Failure f
        ? f.toException().getMessage()
        : String.valueOf(outcome);
  }
}
