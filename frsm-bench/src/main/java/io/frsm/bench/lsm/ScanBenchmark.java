package io.frsm.bench.lsm;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Range scans of about 1000 keys from a random start, one thread. 100k keys (16-byte keys, 512-byte
 * values) flushed and compacted into one run, 128 MiB block cache warmed with every block. frsm
 * scans the token range starting at a random token whose width holds 1000 keys on average (so the
 * count varies around 1000); RocksDB seeks an iterator to a random key position and reads 1000
 * consecutive keys. One op = one whole scan.
 *
 * <pre>java -jar frsm-bench/target/frsm-bench.jar jmh ScanBenchmark -f 1 -wi 2 -i 3 -w 2s -r 3s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ScanBenchmark extends EngineBenchmark {
  private static final long KEYS = 100_000;
  private static final int SCAN_KEYS = 1000;

  @Setup(Level.Trial)
  public void load() {
    openStore(
        "frsm-bench-scan-", new StoreOptions(128 * StoreOptions.MIB, 64 * StoreOptions.MIB, false));
    store.load(0, KEYS);
    store.flush();
    store.compactAll();
    for (long i = 0; i < KEYS; i++) {
      store.get(BenchKeys.key(i));
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    closeStore();
  }

  @Benchmark
  public int scan() {
    return store.scan(ThreadLocalRandom.current().nextLong(), SCAN_KEYS, KEYS);
  }
}
