package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.api.FrsmClient;
import io.frsm.api.Futures;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** What SafeRetries retries (sync and async alike), and what it must not. */
class SafeRetriesTest {
  private static final byte[] KEY = {1};
  private static final Version V = new Version(1, 0);

  /** Answers each call with the next scripted failure, then succeeds; counts sync and async use. */
  private static final class Scripted implements FrsmClient {
    final Deque<RuntimeException> failures = new ArrayDeque<>();
    int syncCalls;
    int asyncCalls;

    private void next() {
      RuntimeException e = failures.poll();
      if (e != null) {
        throw e;
      }
    }

    @Override
    public Optional<Versioned> get(byte[] key) {
      syncCalls++;
      next();
      return Optional.empty();
    }

    @Override
    public Version cas(byte[] key, Version expected, byte[] newValue) {
      syncCalls++;
      next();
      return expected.next();
    }

    @Override
    public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
      asyncCalls++;
      try {
        next();
        return CompletableFuture.completedFuture(Optional.empty());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }

  @Test
  void syncGet_retriesNotExecutedAndUnknown_onTheDelegatesSyncPath() {
    Scripted delegate = new Scripted();
    delegate.failures.add(new NotExecutedException("busy"));
    delegate.failures.add(new OutcomeUnknownException("overtaken"));
    LongAdder retries = new LongAdder();
    assertEquals(Optional.empty(), new SafeRetries(delegate, retries).get(KEY));
    assertEquals(2, retries.sum());
    assertEquals(3, delegate.syncCalls);
    assertEquals(0, delegate.asyncCalls, "a sync call never takes the async path");
  }

  @Test
  void syncCas_retriesNotExecuted_butNeverAnUnknownOutcome() {
    Scripted delegate = new Scripted();
    delegate.failures.add(new NotExecutedException("busy"));
    LongAdder retries = new LongAdder();
    SafeRetries client = new SafeRetries(delegate, retries);
    assertEquals(V.next(), client.cas(KEY, V, new byte[] {2}));
    assertEquals(1, retries.sum());

    delegate.failures.add(new OutcomeUnknownException("lost reply"));
    assertThrows(OutcomeUnknownException.class, () -> client.cas(KEY, V, new byte[] {2}));
    assertEquals(1, retries.sum(), "an unknown CAS is resolved by fence, not retried");
  }

  @Test
  void retries_stopAfterMaxAttempts_syncAndAsync() {
    Scripted delegate = new Scripted();
    for (int i = 0; i < 2 * SafeRetries.MAX_ATTEMPTS; i++) {
      delegate.failures.add(new NotExecutedException("down"));
    }
    LongAdder retries = new LongAdder();
    SafeRetries client = new SafeRetries(delegate, retries);
    assertThrows(NotExecutedException.class, () -> client.get(KEY));
    assertEquals(SafeRetries.MAX_ATTEMPTS, delegate.syncCalls);
    assertThrows(NotExecutedException.class, () -> Futures.join(client.getAsync(KEY)));
    assertEquals(SafeRetries.MAX_ATTEMPTS, delegate.asyncCalls);
    assertEquals(2L * (SafeRetries.MAX_ATTEMPTS - 1), retries.sum());
  }
}
