package io.frsm.api;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns an async result into a sync one, rethrowing frsm's own exceptions unwrapped: how {@link
 * FrsmClient}'s sync methods wait, for implementations that override them.
 */
public final class Futures {
  private Futures() {}

  /** Waits for {@code future}; its failure is rethrown as (or wrapped in) an FrsmException. */
  public static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FrsmException("interrupted while waiting for the result", e);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof FrsmException frsm) {
        throw frsm;
      }
      throw new FrsmException("operation failed: " + cause, cause);
    } catch (CancellationException e) {
      throw new FrsmException("operation cancelled", e);
    }
  }
}
