package io.frsm.bench.lsm;

import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
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
 * Commit-log replay throughput: the time to open an engine whose log holds ~200 MiB of records
 * (16-byte keys, 512-byte values) and nothing else, i.e. to read, checksum, decode and merge every
 * record into the memtable.
 *
 * <p>frsm: the log is written once per trial with a 1 GiB memtable, so nothing flushes, and its
 * directory is copied aside while the engine is still open, after every write was acknowledged (so
 * every record was synced). Each iteration copies it into a fresh commit-log directory (not
 * measured) and the measured call is {@code LsmEngine.open} on a fresh, empty data directory.
 *
 * <p>RocksDB: the same records go to the WAL with a 1 GiB write buffer and auto compaction off;
 * closing does not flush (the WAL holds the data), the database directory is copied aside, and the
 * measured call is {@code RocksDB.open} with {@code avoid_flush_during_recovery}, so that it too
 * only replays into the memtable.
 *
 * <p>JMH reports seconds per open; each iteration also prints log MiB and MiB/s (log bytes / open
 * time), the figure in docs/BENCHMARKS.md. Target for frsm: at least 200 MB/s.
 *
 * <pre>java -jar frsm-bench/target/frsm-bench.jar jmh ReplayBenchmark -f 1 -wi 2 -i 3</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ReplayBenchmark extends EngineBenchmark {
  private static final long TARGET_LOG_BYTES = 200 * StoreOptions.MIB;
  private static final long LOAD_CHUNK_KEYS = 10_000;
  private static final StoreOptions OPTIONS =
      new StoreOptions(32 * StoreOptions.MIB, 1024 * StoreOptions.MIB, false);

  private Path pristine;
  private long logBytes;
  private long keys;
  private long elapsedNanos;

  @Setup(Level.Trial)
  public void writeLog() {
    pristine = TempDirs.create("frsm-bench-replay-log-");
    Path writeDir = TempDirs.create("frsm-bench-replay-write-");
    try {
      if (engine.equals("frsm")) {
        try (FrsmStore store = FrsmStore.open(writeDir, OPTIONS)) {
          while (store.engine().commitLogBytes() < TARGET_LOG_BYTES) {
            store.load(keys, LOAD_CHUNK_KEYS);
            keys += LOAD_CHUNK_KEYS;
          }
          if (store.tableCount() != 0) {
            throw new IllegalStateException("frsm flushed while the log was written");
          }
          TempDirs.copyFlat(writeDir.resolve("commitlog"), pristine);
        }
        logBytes = TempDirs.sizeOfFiles(pristine, "");
      } else {
        try (RocksStore store = RocksStore.open(writeDir, OPTIONS, true)) {
          while (TempDirs.sizeOfFiles(writeDir, ".log") < TARGET_LOG_BYTES) {
            store.load(keys, LOAD_CHUNK_KEYS);
            keys += LOAD_CHUNK_KEYS;
          }
        }
        TempDirs.copyFlat(writeDir, pristine);
        logBytes = TempDirs.sizeOfFiles(pristine, ".log");
      }
    } finally {
      TempDirs.deleteRecursively(writeDir);
    }
  }

  @Setup(Level.Iteration)
  public void copyLog() {
    dir = TempDirs.create("frsm-bench-replay-run-");
    TempDirs.copyFlat(pristine, engine.equals("frsm") ? dir.resolve("commitlog") : dir);
  }

  @Benchmark
  public void open() throws IOException {
    long start = System.nanoTime();
    if (engine.equals("frsm")) {
      store =
          new FrsmStore(
              LsmEngine.open(
                  FrsmStore.config(dir, OPTIONS).build(),
                  NioFileSystem.INSTANCE,
                  new SimpleMeterRegistry()));
    } else {
      store = RocksStore.open(dir, OPTIONS, true);
    }
    elapsedNanos = System.nanoTime() - start;
  }

  @TearDown(Level.Iteration)
  public void report() {
    try {
      if (store.get(BenchKeys.key(keys - 1)) == null || store.tableCount() != 0) {
        throw new IllegalStateException(engine + " did not replay its log into the memtable alone");
      }
      System.out.printf(
          Locale.ROOT,
          "%n%s replay: %d records, %.1f MiB of log in %.0f ms = %.1f MiB/s%n",
          engine,
          keys,
          logBytes / (double) StoreOptions.MIB,
          elapsedNanos / 1e6,
          logBytes / (double) StoreOptions.MIB / (elapsedNanos / 1e9));
    } finally {
      closeStore();
    }
  }

  @TearDown(Level.Trial)
  public void deleteLog() {
    TempDirs.deleteRecursively(pristine);
  }
}
