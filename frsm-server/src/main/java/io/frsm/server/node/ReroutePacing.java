package io.frsm.server.node;

import io.frsm.client.RedirectFollower;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * When an operation the core gave back untried ({@code NotExecuted(rangeMoved)}) is routed again.
 *
 * <p>The first reroute runs at once: the range usually went to a node that is ready, and the
 * operation follows it. Each later one waits a pause that doubles from 10 ms to 500 ms ({@link
 * RedirectFollower#pauseBefore}, the schedule a redirect chain follows): a second give-back means
 * the range is still changing hands (the node that gave it up may even be the only live replica
 * this node knows of until ZooKeeper names the new holder), and rerouting at full speed spent the
 * whole budget in milliseconds and failed an operation that a moment later would have run. With
 * {@link OperationRouter#MAX_REROUTES} reroutes the pauses add up to about 2 s; the operation's τ +
 * T bounds the whole as always (the core answers a plain "not executed" past it, which ends the
 * reroutes).
 */
final class ReroutePacing {
  private final RedirectFollower.Pause pause;

  /** {@code pause} runs the next attempt later, on any thread (a connection event loop's timer). */
  ReroutePacing(RedirectFollower.Pause pause) {
    this.pause = pause;
  }

  /** The pause before a reroute when {@code rerouted} were already made for the operation. */
  static long pauseBefore(int rerouted) {
    return RedirectFollower.pauseBefore(rerouted);
  }

  /**
   * Runs {@code attempt} after the pause owed when {@code rerouted} reroutes were already made, and
   * completes with its result. Nothing {@code attempt} throws leaves the result open.
   */
  <T> CompletableFuture<T> reroute(int rerouted, Supplier<CompletableFuture<T>> attempt) {
    long wait = pauseBefore(rerouted);
    if (wait == 0) {
      return attempt.get();
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    pause.after(wait, () -> runInto(attempt, result));
    return result;
  }

  private static <T> void runInto(
      Supplier<CompletableFuture<T>> attempt, CompletableFuture<T> result) {
    try {
      attempt
          .get()
          .whenComplete(
              (value, error) -> {
                if (error != null) {
                  result.completeExceptionally(error);
                } else {
                  result.complete(value);
                }
              });
    } catch (RuntimeException | Error e) {
      result.completeExceptionally(e);
    }
  }
}
