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
import org.openjdk.jmh.annotations.Threads;

/**
 * Synced puts: each call writes one 16-byte key (uniform over 1M keys, so the data set grows into
 * overwrites) with a 512-byte value and returns only once the write is durable. frsm: {@code
 * LsmEngine.write(...).join()}, which completes after the commit-log stripe's group commit synced;
 * RocksDB: {@code put} with {@code WriteOptions.setSync(true)} (WAL fsynced, RocksDB's own group
 * commit). Both engines run with their defaults otherwise (64 MiB memtable, background flushes and
 * compactions on), so flushes and compactions compete for the CPU as they would in service.
 *
 * <p>1, 8 and 64 writer threads; the more threads, the more writes one fsync covers.
 *
 * <pre>
 * java -jar frsm-bench/target/frsm-bench.jar jmh SyncedPutBenchmark -f 1 -wi 2 -i 3 -w 2s -r 3s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SyncedPutBenchmark extends EngineBenchmark {
  private static final long KEYSPACE = 1_000_000;

  private byte[] value;

  @Setup(Level.Trial)
  public void open() {
    openStore("frsm-bench-put-", StoreOptions.defaults());
    value = BenchKeys.value(); // shared by every write and never modified
  }

  @TearDown(Level.Trial)
  public void close() {
    closeStore();
  }

  @Benchmark
  @Threads(1)
  public void put_1thread() {
    put();
  }

  @Benchmark
  @Threads(8)
  public void put_8threads() {
    put();
  }

  @Benchmark
  @Threads(64)
  public void put_64threads() {
    put();
  }

  private void put() {
    store.putSynced(BenchKeys.key(ThreadLocalRandom.current().nextLong(KEYSPACE)), value);
  }
}
