package io.frsm.bench.experiment;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * Client calls binned by the 100 ms window in which they completed: calls per window, their p99,
 * and failures the API defines as retryable or resolvable (not executed, outcome unknown) apart
 * from any other failure. {@link #wrap} puts it in front of a client.
 */
final class Timeline {
  static final long WINDOW_NANOS = 100_000_000L;
  private static final long HIGHEST_NANOS = 600_000_000_000L;

  private final long startNanos;
  private final Histogram[] windows;
  private final AtomicLongArray retryable;
  private final AtomicLongArray otherFailures;

  Timeline(long startNanos, int windowCount) {
    this.startNanos = startNanos;
    this.windows = new Histogram[windowCount];
    for (int i = 0; i < windowCount; i++) {
      windows[i] = new Histogram(HIGHEST_NANOS, 2);
    }
    this.retryable = new AtomicLongArray(windowCount);
    this.otherFailures = new AtomicLongArray(windowCount);
  }

  int windowCount() {
    return windows.length;
  }

  /** The window a time falls in, or -1 outside the timeline. */
  int windowOf(long nanos) {
    long w = (nanos - startNanos) / WINDOW_NANOS;
    return nanos < startNanos || w >= windows.length ? -1 : (int) w;
  }

  void record(long callStart, Throwable failure) {
    long now = System.nanoTime();
    recordAt(now, now - callStart, failure);
  }

  /** Records a call that completed at {@code nowNanos} after {@code latencyNanos}. */
  void recordAt(long nowNanos, long latencyNanos, Throwable failure) {
    long now = nowNanos;
    int w = windowOf(now);
    if (w < 0) {
      return;
    }
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause == null
        || cause instanceof CasMismatchException
        || cause instanceof KeyExistsException) {
      Histogram h = windows[w];
      synchronized (h) {
        h.recordValue(Math.min(Math.max(latencyNanos, 1), HIGHEST_NANOS));
      }
    } else if (cause instanceof NotExecutedException || cause instanceof OutcomeUnknownException) {
      retryable.incrementAndGet(w);
    } else {
      otherFailures.incrementAndGet(w);
    }
  }

  long calls(int w) {
    synchronized (windows[w]) {
      return windows[w].getTotalCount();
    }
  }

  /** The window's p99 in microseconds (0 when no call completed in it). */
  double p99Micros(int w) {
    synchronized (windows[w]) {
      return windows[w].getTotalCount() == 0 ? 0 : windows[w].getValueAtPercentile(99) / 1000.0;
    }
  }

  /** p99 in microseconds over windows {@code [from, to)}. */
  double p99Micros(int from, int to) {
    Histogram all = new Histogram(HIGHEST_NANOS, 2);
    for (int w = Math.max(from, 0); w < Math.min(to, windows.length); w++) {
      synchronized (windows[w]) {
        all.add(windows[w]);
      }
    }
    return all.getTotalCount() == 0 ? 0 : all.getValueAtPercentile(99) / 1000.0;
  }

  long retryableFailures(int w) {
    return retryable.get(w);
  }

  long otherFailures(int w) {
    return otherFailures.get(w);
  }

  /**
   * The CANDStore time to repair: the first window {@code r >= failedWindow} after which every
   * window (to {@code lastWindow}, exclusive) served calls with p99 within {@code sloMicros}.
   * Returns the index of that window, or -1 if the system never settled within the timeline.
   */
  int repairedWindow(int failedWindow, int lastWindow, double sloMicros) {
    int repaired = failedWindow;
    for (int w = failedWindow + 1; w < lastWindow; w++) {
      boolean ok = calls(w) > 0 && p99Micros(w) <= sloMicros;
      if (!ok) {
        repaired = w;
      }
    }
    return repaired >= lastWindow - 1 ? -1 : repaired;
  }

  /**
   * The first window {@code r >= failedWindow} followed by {@code run} windows that all served
   * calls within {@code sloMicros}: when service first came back and held for a while (later stalls
   * do not move it, unlike {@link #repairedWindow}). -1 if none.
   */
  int firstSettledWindow(int failedWindow, int lastWindow, double sloMicros, int run) {
    for (int r = failedWindow; r + run < lastWindow; r++) {
      boolean ok = true;
      for (int w = r + 1; w <= r + run && ok; w++) {
        ok = calls(w) > 0 && p99Micros(w) <= sloMicros;
      }
      if (ok) {
        return r;
      }
    }
    return -1;
  }

  /** A client whose every call is recorded here. */
  FrsmClient wrap(FrsmClient delegate) {
    return new FrsmClient() {
      private <T> CompletableFuture<T> timed(CompletableFuture<T> call, long start) {
        return call.whenComplete((v, err) -> record(start, err));
      }

      @Override
      public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
        long start = System.nanoTime();
        return timed(delegate.getAsync(key), start);
      }

      @Override
      public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
        long start = System.nanoTime();
        return timed(delegate.createAsync(key, value), start);
      }

      @Override
      public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
        long start = System.nanoTime();
        return timed(delegate.casAsync(key, expected, newValue), start);
      }

      @Override
      public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
        long start = System.nanoTime();
        return timed(delegate.deleteAsync(key, expected), start);
      }

      @Override
      public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
        long start = System.nanoTime();
        return timed(delegate.fenceAsync(key), start);
      }

      @Override
      public void close() {
        delegate.close();
      }
    };
  }
}
