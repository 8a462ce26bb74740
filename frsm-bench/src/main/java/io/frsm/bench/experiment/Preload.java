package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.server.workload.WorkloadRunner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Writes keys into a cluster before a measured run, so that the nodes' tables hold more than the
 * workload touches (issue 23's node-level scrub figure: one scrub pass must outlast the warm-up and
 * the measured window). {@link RemoteWorkloadMain}'s {@code --preload N}.
 *
 * <p>Key {@code i < workloadKeys} is the workload's own {@link WorkloadRunner#key} ({@code
 * key-0000000042}); key {@code i >= workloadKeys} is {@code pre-} and the same ten digits: the same
 * length, never drawn by the workload, so the measured key set (and its Zipf hot set) is unchanged
 * while the tables grow. Values are {@link #VALUE_BYTES} random bytes, as the paper workload's.
 * Caller {@code c} of {@code callers} creates the keys {@code i ≡ c (mod callers)}, each caller a
 * thread of its own (so each goes through its own client under {@link RemoteWorkloadMain}'s
 * per-thread clients).
 *
 * <p>Outcomes are handled as the workload handles them: an operation answered "not executed" is
 * retried ({@link SafeRetries}); a create whose outcome is unknown is resolved with {@code fence},
 * as the API requires, and created again if the fence finds the key absent (up to {@link
 * #MAX_CREATES} creates per key); a key that exists already (an earlier preload) counts as {@code
 * existed}. Any other failure is counted and the key left out: the preload only has to make the
 * tables large, the measured run checks its own operations.
 */
final class Preload {
  static final int VALUE_BYTES = 512;

  /** Creates per key before it is given up as failed (an unknown outcome, fenced absent, again). */
  static final int MAX_CREATES = 4;

  private static final byte[] FILL_PREFIX = "pre-".getBytes(StandardCharsets.US_ASCII);

  private Preload() {}

  /**
   * What the preload did: keys created, found existing, creates whose outcome was unknown (each
   * fenced), keys given up, wall time.
   */
  record Result(long created, long existed, long unknown, long failed, double seconds) {
    long keys() {
      return created + existed;
    }
  }

  /** The preload's key of index {@code i}: the workload's below {@code workloadKeys}, else pre-. */
  static byte[] key(long i, long workloadKeys) {
    byte[] k = WorkloadRunner.key(i);
    if (i >= workloadKeys) {
      System.arraycopy(FILL_PREFIX, 0, k, 0, FILL_PREFIX.length); // "key-" and "pre-": 4 bytes
    }
    return k;
  }

  /**
   * Creates the keys {@code 0 .. keys-1} (named by {@link #key}) through {@code client} from {@code
   * callers} threads; {@code progress} gets a line every 5 s.
   */
  static Result run(
      FrsmClient client, long keys, long workloadKeys, int callers, Consumer<String> progress)
      throws InterruptedException {
    FrsmClient safe = new SafeRetries(client, new LongAdder());
    LongAdder created = new LongAdder();
    LongAdder existed = new LongAdder();
    LongAdder unknown = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicReference<String> lastError = new AtomicReference<>();
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      int caller = c;
      Thread t =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(7_919L * (caller + 1));
                for (long i = caller; i < keys; i += callers) {
                  byte[] value = new byte[VALUE_BYTES];
                  random.nextBytes(value);
                  switch (createOne(safe, key(i, workloadKeys), value, unknown, lastError)) {
                    case CREATED -> created.increment();
                    case EXISTED -> existed.increment();
                    case FAILED -> failed.increment();
                  }
                }
              },
              "preload-" + c);
      t.setDaemon(true);
      threads.add(t);
    }
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "preload-progress");
              t.setDaemon(true);
              return t;
            });
    ticker.scheduleAtFixedRate(
        () -> {
          long done = created.sum() + existed.sum() + failed.sum();
          double s = (System.nanoTime() - start) / 1e9;
          progress.accept(
              String.format(
                  Locale.ROOT,
                  "preload t=%4.0fs %,d of %,d keys (%.0f keys/s) unknown %d failed %d",
                  s,
                  done,
                  keys,
                  done / s,
                  unknown.sum(),
                  failed.sum()));
        },
        5,
        5,
        TimeUnit.SECONDS);
    for (Thread t : threads) {
      t.start();
    }
    try {
      for (Thread t : threads) {
        t.join();
      }
    } finally {
      ticker.shutdownNow();
    }
    if (lastError.get() != null) {
      progress.accept("preload: last failure " + lastError.get());
    }
    return new Result(
        created.sum(),
        existed.sum(),
        unknown.sum(),
        failed.sum(),
        (System.nanoTime() - start) / 1e9);
  }

  enum Outcome {
    CREATED,
    EXISTED,
    FAILED
  }

  /** One key: created, found present, or given up (see the class comment). */
  static Outcome createOne(
      FrsmClient client,
      byte[] key,
      byte[] value,
      LongAdder unknown,
      AtomicReference<String> lastError) {
    for (int attempt = 1; attempt <= MAX_CREATES; attempt++) {
      try {
        client.create(key, value);
        return Outcome.CREATED;
      } catch (KeyExistsException e) {
        // Ours from an attempt whose outcome was unknown, or an earlier preload's.
        return attempt == 1 ? Outcome.EXISTED : Outcome.CREATED;
      } catch (OutcomeUnknownException e) {
        unknown.increment();
        try {
          if (client.fence(key).isPresent()) {
            return Outcome.CREATED;
          }
        } catch (FrsmException fenceFailed) {
          lastError.set(fenceFailed.toString());
          return Outcome.FAILED;
        }
      } catch (FrsmException e) {
        lastError.set(e.toString());
        return Outcome.FAILED;
      }
    }
    return Outcome.FAILED;
  }
}
