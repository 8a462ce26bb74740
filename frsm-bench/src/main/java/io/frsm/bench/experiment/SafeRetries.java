package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A client that retries what the API says is safe to retry, as an application would: any operation
 * answered "not executed" (it did not take effect), and a get or fence answered "outcome unknown"
 * (a quorum read or fence that had to write ends so when a concurrent proposal overtakes it; a get
 * changes nothing a client can observe, and a fence may be repeated — the API resolves an unknown
 * outcome by fencing until one answers). A CAS or create with an unknown outcome is not retried:
 * the workload resolves it with a fence. Retries back off at random and are counted and reported,
 * not hidden.
 */
final class SafeRetries implements FrsmClient {
  static final int MAX_ATTEMPTS = 8;

  /**
   * A retry waits a random 0..2^attempt ms (capped at 64 ms): an immediate retry of a read that
   * lost to a concurrent proposer on a hot key mostly meets the same proposer again.
   */
  static final long MAX_BACKOFF_MILLIS = 64;

  private final FrsmClient delegate;
  private final LongAdder retries;

  SafeRetries(FrsmClient delegate, LongAdder retries) {
    this.delegate = delegate;
    this.retries = retries;
  }

  private <T> CompletableFuture<T> attempt(
      Supplier<CompletableFuture<T>> call, boolean idempotent, int attempt) {
    return call.get()
        .handle(
            (v, err) -> {
              if (err == null) {
                return CompletableFuture.completedFuture(v);
              }
              Throwable cause =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              boolean retryable =
                  cause instanceof NotExecutedException
                      || (idempotent && cause instanceof OutcomeUnknownException);
              if (retryable && attempt < MAX_ATTEMPTS) {
                retries.increment();
                long bound = Math.min(1L << attempt, MAX_BACKOFF_MILLIS);
                Executor later =
                    CompletableFuture.delayedExecutor(
                        ThreadLocalRandom.current().nextLong(bound + 1), TimeUnit.MILLISECONDS);
                return CompletableFuture.supplyAsync(() -> null, later)
                    .thenCompose(ignored -> attempt(call, idempotent, attempt + 1));
              }
              return CompletableFuture.<T>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * The sync form of {@link #attempt}, over the delegate's own sync methods (so a client whose sync
   * calls skip a thread hand-off keeps that advantage). The back-off is a deliberate pause before a
   * retry, not a wait for a condition.
   */
  private <T> T attemptSync(Supplier<T> call, boolean idempotent) {
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (NotExecutedException | OutcomeUnknownException e) {
        boolean retryable = e instanceof NotExecutedException || idempotent;
        if (!retryable || attempt >= MAX_ATTEMPTS) {
          throw e;
        }
        retries.increment();
        long bound = Math.min(1L << attempt, MAX_BACKOFF_MILLIS);
        LockSupport.parkNanos(
            TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(bound + 1)));
      }
    }
  }

  @Override
  public Optional<Versioned> get(byte[] key) {
    return attemptSync(() -> delegate.get(key), true);
  }

  @Override
  public Version create(byte[] key, byte[] value) {
    return attemptSync(() -> delegate.create(key, value), false);
  }

  @Override
  public Version cas(byte[] key, Version expected, byte[] newValue) {
    return attemptSync(() -> delegate.cas(key, expected, newValue), false);
  }

  @Override
  public void delete(byte[] key, Version expected) {
    attemptSync(
        () -> {
          delegate.delete(key, expected);
          return null;
        },
        false);
  }

  @Override
  public Optional<Versioned> fence(byte[] key) {
    return attemptSync(() -> delegate.fence(key), true);
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return attempt(() -> delegate.getAsync(key), true, 1);
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return attempt(() -> delegate.createAsync(key, value), false, 1);
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    return attempt(() -> delegate.casAsync(key, expected, newValue), false, 1);
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    return attempt(() -> delegate.deleteAsync(key, expected), false, 1);
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return attempt(() -> delegate.fenceAsync(key), true, 1);
  }

  /** Leaves the delegate open: its owner closes it. */
  @Override
  public void close() {}
}
