package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link ClientCpuMain}'s asynchronous closed loop: {@code callers} logical callers, none with a
 * thread of its own. Each runs the paper's mix as the blocking callers do (a get; 57% of the time a
 * CAS from the version it read, or a create if the key is absent) and starts its next operation
 * from the completion of the one before, on the thread that completed it. So at most {@code
 * callers} operations are in flight, as with that many blocking threads, and the callers cost no
 * parking and waking of their own.
 *
 * <p>A completion that happened before its continuation was attached (an argument error, a closed
 * client) would run the next operation on the same stack; past {@link #MAX_NESTED} such nested
 * starts the next one starts on a small executor instead, so a run of failures cannot overflow the
 * stack.
 */
final class AsyncCallers {
  private static final int MAX_NESTED = 16;
  private static final ThreadLocal<int[]> NESTED = ThreadLocal.withInitial(() -> new int[1]);

  private final FrsmClient client;
  private final int callers;
  private final int keys;
  private final long endNanos;
  private final byte[] value = new byte[512];
  private final LongAdder done = new LongAdder();
  private final CountDownLatch ended;
  private final AtomicReference<Throwable> unexpected = new AtomicReference<>();
  private final ExecutorService unnester =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "client-cpu-async-unnester");
            t.setDaemon(true);
            return t;
          });

  AsyncCallers(FrsmClient client, int callers, int seconds, int keys) {
    this.client = client;
    this.callers = callers;
    this.keys = keys;
    this.endNanos = System.nanoTime() + seconds * 1_000_000_000L;
    this.ended = new CountDownLatch(callers);
  }

  /**
   * Operations done (gets, and CASes or creates that did not throw, as the blocking callers count
   * them) once every caller ended.
   */
  long run() throws InterruptedException {
    try {
      for (int c = 0; c < callers; c++) {
        next();
      }
      // A caller ends with the first operation it would start after the window: one operation's
      // time past the end, or the client's timeout if an answer is lost.
      if (!ended.await(
          TimeUnit.NANOSECONDS.toSeconds(endNanos - System.nanoTime()) + 60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(ended.getCount() + " async callers never ended");
      }
    } finally {
      unnester.shutdown();
    }
    Throwable failure = unexpected.get();
    if (failure != null) {
      throw new IllegalStateException("an async caller failed", failure);
    }
    return done.sum();
  }

  /** One caller's next iteration, or its end once the window is over. */
  private void next() {
    if (System.nanoTime() - endNanos >= 0) {
      ended.countDown();
      return;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    byte[] key = ("cpu-" + random.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
    boolean write = random.nextInt(100) < 57;
    client
        .getAsync(key)
        .thenCompose(read -> write ? mutate(key, read) : CompletableFuture.completedFuture(null))
        .whenComplete(
            (ignored, error) -> {
              Throwable cause = error instanceof CompletionException ? error.getCause() : error;
              if (cause == null) {
                done.add(write ? 2 : 1); // the get, and the CAS or create after it
              } else if (!(cause instanceof FrsmException)) {
                unexpected.compareAndSet(null, cause); // a bug, not part of the mix
              }
              // A lost race (mismatch, exists) is part of the mix; not counted.
              continueCaller();
            });
  }

  private CompletableFuture<Version> mutate(byte[] key, Optional<Versioned> read) {
    if (read.isPresent()) {
      return client.casAsync(key, read.get().version(), value);
    }
    return client.createAsync(key, value);
  }

  private void continueCaller() {
    int[] depth = NESTED.get();
    if (depth[0] >= MAX_NESTED) {
      unnester.execute(this::next);
      return;
    }
    depth[0]++;
    try {
      next();
    } finally {
      depth[0]--;
    }
  }
}
