package io.frsm.bench.experiment;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When the hottest key was first answered again after a kill, by kind of call: the recovery
 * experiment's measure of "the first answer served for the hot key" (a get may be a quorum read
 * before the new holder may write; a CAS needs the new holder's lease and term). A CAS that ends in
 * a version mismatch was answered too. Times are {@link System#nanoTime()} readings; 0 until
 * answered. {@link #wrap} puts it in front of a client.
 */
final class HotKeyProbe {
  private final byte[] key;
  private volatile long armedAt;
  private volatile boolean armed;
  private final AtomicLong firstGet = new AtomicLong();
  private final AtomicLong firstCas = new AtomicLong();

  HotKeyProbe(byte[] key) {
    this.key = key.clone();
  }

  /** From now on (a call started before {@code nanos} does not count) record first answers. */
  void arm(long nanos) {
    armedAt = nanos;
    armed = true;
  }

  /** The first get of the key answered that started after the arming, or 0. */
  long firstGetNanos() {
    return firstGet.get();
  }

  /** The first CAS of the key answered (applied or mismatched) that started after arming, or 0. */
  long firstCasNanos() {
    return firstCas.get();
  }

  /** Records a call on {@code k} started at {@code start} and answered at {@code now}. */
  void answered(byte[] k, boolean cas, long start, long now) {
    if (armed && start - armedAt >= 0 && Arrays.equals(k, key)) {
      (cas ? firstCas : firstGet).compareAndSet(0, now);
    }
  }

  private static boolean answered(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return cause == null || cause instanceof CasMismatchException;
  }

  /** A client whose gets and CAS on the key are watched (every other call passes through). */
  FrsmClient wrap(FrsmClient delegate) {
    return new FrsmClient() {
      @Override
      public CompletableFuture<Optional<Versioned>> getAsync(byte[] k) {
        long start = System.nanoTime();
        return delegate
            .getAsync(k)
            .whenComplete(
                (v, err) -> {
                  if (answered(err)) {
                    answered(k, false, start, System.nanoTime());
                  }
                });
      }

      @Override
      public CompletableFuture<Version> casAsync(byte[] k, Version expected, byte[] newValue) {
        long start = System.nanoTime();
        return delegate
            .casAsync(k, expected, newValue)
            .whenComplete(
                (v, err) -> {
                  if (answered(err)) {
                    answered(k, true, start, System.nanoTime());
                  }
                });
      }

      @Override
      public CompletableFuture<Version> createAsync(byte[] k, byte[] value) {
        return delegate.createAsync(k, value);
      }

      @Override
      public CompletableFuture<Void> deleteAsync(byte[] k, Version expected) {
        return delegate.deleteAsync(k, expected);
      }

      @Override
      public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] k) {
        return delegate.fenceAsync(k);
      }

      @Override
      public void close() {
        delegate.close();
      }
    };
  }
}
