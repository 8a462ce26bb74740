package io.frsm.client;

import io.frsm.api.ClientObserver;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Tells a {@link ClientObserver} how each call ended, in the names its javadoc lists. A throwing
 * observer is ignored: the service's metrics must never fail its calls. Thread-safe (stateless).
 */
final class ObservedCalls {
  private final ClientObserver observer;

  ObservedCalls(ClientObserver observer) {
    this.observer = observer;
  }

  /** Reports {@code call}'s end to the observer; returns {@code call}. */
  CompletableFuture<ClientOutcome> observe(
      ClientOperation operation, long startNanos, CompletableFuture<ClientOutcome> call) {
    if (observer == ClientObserver.NONE) {
      return call;
    }
    call.whenComplete(
        (outcome, error) -> report(name(operation), outcome(outcome, error), startNanos));
    return call;
  }

  /** A call refused before it was queued (its arguments). */
  void refused(String operation, long startNanos) {
    report(operation, "invalid", startNanos);
  }

  private void report(String operation, String outcome, long startNanos) {
    try {
      observer.operationEnded(operation, outcome, System.nanoTime() - startNanos);
    } catch (RuntimeException ignored) {
      // The service's observer failed: its metric is lost, the call is not.
    }
  }

  void topologyChanged(int liveNodes) {
    try {
      observer.topologyChanged(liveNodes);
    } catch (RuntimeException ignored) {
      // As above.
    }
  }

  static String name(ClientOperation op) {
    if (op instanceof ClientOperation.Get) {
      return "get";
    } else if (op instanceof ClientOperation.Create) {
      return "create";
    } else if (op instanceof ClientOperation.Cas) {
      return "cas";
    } else if (op instanceof ClientOperation.Delete) {
      return "delete";
    }
    return "fence";
  }

  static String outcome(ClientOutcome outcome, Throwable error) {
    if (error != null) {
      Throwable e =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      if (e instanceof OutcomeUnknownException) {
        return "unknown";
      } else if (e instanceof NotExecutedException) {
        return "not_executed";
      } else if (e instanceof InvalidRequestException) {
        return "invalid";
      }
      return "error";
    }
    if (outcome instanceof ClientOutcome.Mismatch) {
      return "mismatch";
    } else if (outcome instanceof ClientOutcome.Exists) {
      return "exists";
    } else if (outcome instanceof ClientOutcome.Unknown) {
      return "unknown";
    } else if (outcome instanceof ClientOutcome.NotExecuted) {
      return "not_executed";
    }
    return "ok";
  }
}
