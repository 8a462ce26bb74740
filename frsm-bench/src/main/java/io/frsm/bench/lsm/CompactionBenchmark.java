package io.frsm.bench.lsm;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Compaction throughput: before each iteration (not measured) a fresh engine gets 8 tables of 16k
 * keys each (8 MiB of 512-byte values per table, disjoint keys spread over the whole key range);
 * the measured call merges all 8 into one: frsm {@code compactMajor()}, RocksDB {@code
 * compactRange()} (8 L0 files into the bottom level, one subcompaction). Background compaction is
 * off for both so the 8 tables stay apart until measured; frsm's compaction rate limit (Table 3
 * {@code compaction_throughput_limit}, 64 MB/s by default) is raised to 1 TiB/s so that it does not
 * cap the figure.
 *
 * <p>JMH reports seconds per compaction; each iteration also prints its input bytes and MB/s (input
 * table bytes / compaction time), the figure in docs/BENCHMARKS.md.
 *
 * <pre>java -jar frsm-bench/target/frsm-bench.jar jmh CompactionBenchmark -f 1 -wi 2 -i 3</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CompactionBenchmark extends EngineBenchmark {
  private static final int TABLES = 8;
  private static final long KEYS_PER_TABLE = 16 * 1024;

  private long inputBytes;
  private long elapsedNanos;

  @Setup(Level.Iteration)
  public void writeTables() {
    openStore(
        "frsm-bench-compaction-",
        new StoreOptions(32 * StoreOptions.MIB, 64 * StoreOptions.MIB, false));
    for (int t = 0; t < TABLES; t++) {
      store.load(t * KEYS_PER_TABLE, KEYS_PER_TABLE);
      store.flush();
    }
    if (store.tableCount() != TABLES) {
      throw new IllegalStateException(
          engine + ": expected " + TABLES + " tables, found " + store.tableCount());
    }
    inputBytes = store.tableBytes();
  }

  @Benchmark
  public void compactAll() {
    long start = System.nanoTime();
    store.compactAll();
    elapsedNanos = System.nanoTime() - start;
  }

  @TearDown(Level.Iteration)
  public void report() {
    try {
      System.out.printf(
          Locale.ROOT,
          "%n%s compaction: %d tables, %.1f MiB in %.0f ms = %.1f MiB/s; %d table(s) after%n",
          engine,
          TABLES,
          inputBytes / (double) StoreOptions.MIB,
          elapsedNanos / 1e6,
          inputBytes / (double) StoreOptions.MIB / (elapsedNanos / 1e9),
          store.tableCount());
    } finally {
      closeStore();
    }
  }
}
