package io.frsm.server.workload;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Runs a {@link WorkloadSpec} against any {@link FrsmClient} (an embedded node, a thin client, a
 * baseline behind the same interface) and measures it.
 *
 * <p>A write is a read-modify-write: {@code get}, then {@code cas} from the version read ({@code
 * create} if absent); its latency covers both calls, as a client of the store sees it. A CAS that
 * loses a race counts as a mismatch (contention, not an error); an unknown outcome is resolved with
 * {@code fence}, as the API requires, and counted.
 */
public final class WorkloadRunner {
  private final FrsmClient client;
  private final WorkloadSpec spec;
  private final Consumer<String> progress;
  private final LongAdder done = new LongAdder();
  private final LongAdder failed = new LongAdder();

  /** {@code progress} receives a line every second (e.g. {@code System.err::println}). */
  public WorkloadRunner(FrsmClient client, WorkloadSpec spec, Consumer<String> progress) {
    this.client = client;
    this.spec = spec;
    this.progress = progress;
  }

  /** The key of index {@code i}: {@code key-0000000042}. */
  public static byte[] key(long i) {
    if (i < 0 || i > KEY_INDEX_MAX) {
      throw new IllegalArgumentException("key index out of range: " + i);
    }
    // "key-" and ten zero-padded digits, written directly: String.format here cost ~3% of the
    // benchmark's CPU per operation.
    byte[] out = new byte[KEY_PREFIX.length + KEY_DIGITS];
    System.arraycopy(KEY_PREFIX, 0, out, 0, KEY_PREFIX.length);
    for (int d = out.length - 1; d >= KEY_PREFIX.length; d--) {
      out[d] = (byte) ('0' + (int) (i % 10));
      i /= 10;
    }
    return out;
  }

  private static final byte[] KEY_PREFIX = "key-".getBytes(StandardCharsets.US_ASCII);
  private static final int KEY_DIGITS = 10;
  private static final long KEY_INDEX_MAX = 9_999_999_999L;

  public WorkloadResult run() throws InterruptedException {
    long start = System.nanoTime();
    long end = start + spec.duration().toNanos();
    List<Thread> threads = new ArrayList<>();
    List<WorkloadResult> perThread = new ArrayList<>();
    for (int c = 0; c < spec.clients(); c++) {
      WorkloadResult result = new WorkloadResult();
      perThread.add(result);
      long seed = spec.seed() * 1_000_003 + c;
      Thread t = new Thread(() -> clientLoop(seed, end, result), "workload-client-" + c);
      t.setDaemon(true);
      threads.add(t);
    }
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "workload-progress");
              t.setDaemon(true);
              return t;
            });
    long[] last = {0};
    ticker.scheduleAtFixedRate(
        () -> {
          long total = done.sum();
          progress.accept(
              String.format(
                  Locale.ROOT,
                  "t=%3ds  %8d ops/s  total %10d  failures %d",
                  TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                  total - last[0],
                  total,
                  failed.sum()));
          last[0] = total;
        },
        1,
        1,
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
    WorkloadResult total = new WorkloadResult();
    for (WorkloadResult r : perThread) {
      total.add(r);
    }
    total.elapsedSeconds = (System.nanoTime() - start) / 1e9;
    return total;
  }

  private void clientLoop(long seed, long endNanos, WorkloadResult result) {
    SplittableRandom random = new SplittableRandom(seed);
    ZipfianKeys keys = new ZipfianKeys(spec.keyCount(), spec.zipfTheta(), seed);
    byte[] valueSource = new byte[Math.max(spec.valueSizeBytes(), 1024)];
    random.nextBytes(valueSource);
    boolean openLoop = spec.targetOpsPerSecond() > 0;
    long periodNanos = openLoop ? (long) (1e9 * spec.clients() / spec.targetOpsPerSecond()) : 0;
    long intended = System.nanoTime();
    while (true) {
      long now = System.nanoTime();
      if (now >= endNanos) {
        return;
      }
      long startNanos;
      if (openLoop) {
        if (intended > now) {
          LockSupport.parkNanos(intended - now);
        }
        startNanos = intended; // latency from the intended start: no coordinated omission
        intended += periodNanos;
      } else {
        startNanos = now;
      }
      byte[] key = key(keys.next());
      try {
        if (random.nextDouble() < spec.readFraction()) {
          client.get(key);
          result.stats("get").record(System.nanoTime() - startNanos);
        } else {
          readModifyWrite(key, value(random, valueSource), startNanos, result);
        }
        done.increment();
      } catch (FrsmException e) {
        result.errors++;
        result.lastError = e.toString();
        failed.increment();
      }
    }
  }

  private void readModifyWrite(byte[] key, byte[] value, long startNanos, WorkloadResult result) {
    Optional<Versioned> current = client.get(key);
    String type = current.isPresent() ? "cas" : "create";
    try {
      if (current.isPresent()) {
        client.cas(key, current.get().version(), value);
      } else {
        client.create(key, value);
      }
    } catch (CasMismatchException | KeyExistsException lostRace) {
      result.casMismatches++;
    } catch (OutcomeUnknownException unknown) {
      result.outcomeUnknown++;
      long fenceStart = System.nanoTime();
      client.fence(key);
      result.stats("fence").record(System.nanoTime() - fenceStart);
    }
    result.stats(type).record(System.nanoTime() - startNanos);
  }

  private byte[] value(SplittableRandom random, byte[] source) {
    int size;
    if (spec.valueSizeMix()) {
      // 80% of values under 200 bytes, the rest up to 1 KiB (paper §4: most metadata is small).
      size = random.nextDouble() < 0.8 ? random.nextInt(16, 200) : random.nextInt(200, 1025);
    } else {
      size = spec.valueSizeBytes();
    }
    byte[] v = new byte[size];
    System.arraycopy(source, random.nextInt(source.length - size + 1), v, 0, size);
    return v;
  }
}
