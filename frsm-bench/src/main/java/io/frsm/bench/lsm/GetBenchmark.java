package io.frsm.bench.lsm;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Point reads, one thread, uniform over the loaded keys (16-byte keys, 512-byte values). Both
 * engines: 32 MiB block cache (frsm {@code blockCacheSizeBytes}, RocksDB {@code LRUCache} via
 * {@code BlockBasedTableConfig.setBlockCache}), 4 KiB blocks, 10 bloom bits per key, no
 * compression, no background compaction.
 *
 * <ul>
 *   <li>{@code memtable}: 32k keys (16 MiB of values), never flushed.
 *   <li>{@code sstable-warm}: the same 32k keys flushed and compacted into one run, every block
 *       read once before measuring, so all fit in the cache.
 *   <li>{@code sstable-cold}: 4 × 32 MiB of data (~254k keys) flushed and compacted: about three of
 *       four gets miss the block cache and read the file (from the OS page cache: this measures the
 *       engine's read path, not the disk).
 * </ul>
 *
 * {@link #get} reads a present key; {@link #miss} an absent one (bloom filters answer).
 *
 * <pre>java -jar frsm-bench/target/frsm-bench.jar jmh GetBenchmark -f 1 -wi 2 -i 3 -w 2s -r 3s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class GetBenchmark extends EngineBenchmark {
  static final long CACHE_BYTES = 32 * StoreOptions.MIB;
  private static final long WARM_KEYS = 32 * 1024;
  private static final long COLD_KEYS =
      4 * CACHE_BYTES / (BenchKeys.KEY_BYTES + BenchKeys.VALUE_BYTES);

  @Param({"memtable", "sstable-warm", "sstable-cold"})
  public String layout;

  private long keys;

  @Setup(Level.Trial)
  public void load() {
    openStore("frsm-bench-get-", new StoreOptions(CACHE_BYTES, 64 * StoreOptions.MIB, false));
    keys = layout.equals("sstable-cold") ? COLD_KEYS : WARM_KEYS;
    store.load(0, keys);
    if (!layout.equals("memtable")) {
      store.flush();
      store.compactAll();
    }
    if (layout.equals("sstable-warm")) {
      for (long i = 0; i < keys; i++) {
        store.get(BenchKeys.key(i));
      }
    }
    if (store.get(BenchKeys.key(keys - 1)) == null) {
      throw new IllegalStateException(engine + " lost a loaded key");
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    closeStore();
  }

  @Benchmark
  public byte[] get() {
    return store.get(BenchKeys.key(ThreadLocalRandom.current().nextLong(keys)));
  }

  @Benchmark
  public byte[] miss() {
    return store.get(
        BenchKeys.key(BenchKeys.ABSENT_BASE + ThreadLocalRandom.current().nextLong(keys)));
  }
}
