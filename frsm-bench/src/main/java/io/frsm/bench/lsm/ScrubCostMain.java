package io.frsm.bench.lsm;

import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * The background scrub's cost to foreground latency (issue 23: "p99 at most 1.2x while scrubbing,
 * throttled"). One engine holds {@code keys} keys of 512 B in SSTables; {@code threads} threads run
 * 80% point gets of random keys and 20% synced writes for windows of {@code seconds}, alternating
 * scrub off and on (OFF, ON, OFF, ON, ...: {@code rounds} of each, so drift in the machine's load
 * falls on both sides). In an ON window one more thread steps the scrub at {@code throughput} bytes
 * per second — the throttle the background scrub runs with — through {@link
 * LsmEngine#scrubStepNow()}, restarting the pass when it ends. Prints each window's operations and
 * latency percentiles, the bytes the scrub verified and the CPU its thread spent on them, and the
 * ratio of the ON windows' p99 to the OFF windows' (medians over rounds).
 *
 * <pre>{@code
 * java -cp frsm-bench/target/frsm-bench.jar io.frsm.bench.lsm.ScrubCostMain \
 *     [keys=200000] [threads=8] [seconds=5] [rounds=3] [throughput=4194304]
 * }</pre>
 */
public final class ScrubCostMain {
  private static final int WRITE_PERCENT = 20;
  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private ScrubCostMain() {}

  public static void main(String[] args) throws Exception {
    long keys = arg(args, "keys", 200_000);
    int threads = (int) arg(args, "threads", 8);
    long seconds = arg(args, "seconds", 5);
    int rounds = (int) arg(args, "rounds", 3);
    long throughput = arg(args, "throughput", 4L << 20);
    Path dir = TempDirs.create("frsm-bench-scrub-cost-");
    StoreOptions options = new StoreOptions(32 * StoreOptions.MIB, 64 * StoreOptions.MIB, true);
    try (FrsmStore store =
        new FrsmStore(
            LsmEngine.open(
                FrsmStore.config(dir, options)
                    .scrubEnabled(false)
                    .scrubThroughputBytesPerSecond(throughput)
                    .build(),
                NioFileSystem.INSTANCE,
                new SimpleMeterRegistry()))) {
      store.load(0, keys);
      store.flush();
      store.compactAll();
      System.out.printf(
          Locale.ROOT,
          "scrub cost: %d keys in %d tables (%.1f MiB), %d threads (%d%% synced writes), scrub"
              + " throttle %.1f MiB/s, %d s windows, %d rounds%n",
          keys,
          store.tableCount(),
          store.tableBytes() / (double) StoreOptions.MIB,
          threads,
          WRITE_PERCENT,
          throughput / (double) StoreOptions.MIB,
          seconds,
          rounds);
      new Run(store, keys, threads).measure(seconds, rounds);
    } finally {
      TempDirs.deleteRecursively(dir);
    }
  }

  /** The foreground load, the scrub stepper, and the windows. */
  private static final class Run {
    private final FrsmStore store;
    private final long keys;
    private final int threads;
    private final Recorder latencies = new Recorder(3);
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean scrubbing = new AtomicBoolean();
    private final AtomicLong operations = new AtomicLong();

    /** CPU time the scrub stepper spent stepping, in nanoseconds (it parks between windows). */
    private final AtomicLong scrubCpuNanos = new AtomicLong();

    Run(FrsmStore store, long keys, int threads) {
      this.store = store;
      this.keys = keys;
      this.threads = threads;
    }

    void measure(long seconds, int rounds) throws Exception {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = t;
        workers.add(start("foreground-" + t, () -> foreground(seed)));
      }
      Thread scrub = start("scrub-stepper", this::scrub);
      try {
        window(false, seconds); // warm-up, not counted
        List<Long> offP99 = new ArrayList<>();
        List<Long> onP99 = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
          offP99.add(window(false, seconds));
          onP99.add(window(true, seconds));
        }
        long off = median(offP99);
        long on = median(onP99);
        System.out.printf(
            Locale.ROOT,
            "median p99: scrub off %.1f us, scrub on %.1f us: %.2fx%n",
            off / 1e3,
            on / 1e3,
            on / (double) off);
      } finally {
        stop.set(true);
        scrubbing.set(false);
        for (Thread w : workers) {
          w.join();
        }
        scrub.join();
      }
    }

    /** One window; returns its p99 in nanoseconds. */
    private long window(boolean scrubOn, long seconds) throws InterruptedException {
      long scrubbedBefore = store.engine().scrubStatus().bytesScrubbed();
      long cpuBefore = scrubCpuNanos.get();
      scrubbing.set(scrubOn);
      latencies.reset();
      long opsBefore = operations.get();
      Thread.sleep(TimeUnit.SECONDS.toMillis(seconds)); // a measurement window, not a wait
      var h = latencies.getIntervalHistogram();
      long ops = operations.get() - opsBefore;
      scrubbing.set(false);
      long scrubbed = store.engine().scrubStatus().bytesScrubbed() - scrubbedBefore;
      long scrubCpu = scrubCpuNanos.get() - cpuBefore;
      long p99 = h.getValueAtPercentile(99);
      System.out.printf(
          Locale.ROOT,
          "scrub %-3s %8.0f ops/s  p50 %7.1f us  p99 %8.1f us  p99.9 %8.1f us  scrubbed %.1f"
              + " MiB  scrub CPU %.1f ms (%.2f ms/MiB, %.1f%% of a core)%n",
          scrubOn ? "on" : "off",
          ops / (double) seconds,
          h.getValueAtPercentile(50) / 1e3,
          p99 / 1e3,
          h.getValueAtPercentile(99.9) / 1e3,
          scrubbed / (double) StoreOptions.MIB,
          scrubCpu / 1e6,
          scrubbed == 0 ? 0.0 : scrubCpu / 1e6 / (scrubbed / (double) StoreOptions.MIB),
          scrubCpu / 1e7 / seconds);
      return p99;
    }

    private void foreground(long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      while (!stop.get()) {
        byte[] key = BenchKeys.key(random.nextLong(keys));
        long start = System.nanoTime();
        if (random.nextInt(100) < WRITE_PERCENT) {
          store.putSynced(key, BenchKeys.value());
        } else if (store.get(key) == null) {
          throw new IllegalStateException("a loaded key is missing");
        }
        latencies.recordValue(System.nanoTime() - start);
        operations.incrementAndGet();
      }
    }

    private void scrub() {
      while (!stop.get()) {
        if (!scrubbing.get()) {
          java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
          continue;
        }
        long cpu = THREADS.getCurrentThreadCpuTime();
        try {
          store.engine().scrubStepNow();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        scrubCpuNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - cpu);
      }
    }

    private static Thread start(String name, Runnable body) {
      Thread t = new Thread(body, name);
      t.start();
      return t;
    }

    private static long median(List<Long> values) {
      List<Long> sorted = new ArrayList<>(values);
      sorted.sort(null);
      return sorted.get(sorted.size() / 2);
    }
  }

  private static long arg(String[] args, String name, long fallback) {
    for (String a : args) {
      if (a.startsWith(name + "=")) {
        return Long.parseLong(a.substring(name.length() + 1));
      }
    }
    return fallback;
  }
}
