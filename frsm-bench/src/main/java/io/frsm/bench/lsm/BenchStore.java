package io.frsm.bench.lsm;

import java.nio.file.Path;

/**
 * The operations the benchmarks run, on frsm's LSM engine or on RocksDB, so that every benchmark is
 * one method run once per engine with the same parameters ({@code @Param("engine")}).
 */
public interface BenchStore extends AutoCloseable {

  /** Opens engine {@code "frsm"} or {@code "rocksdb"} in the empty directory {@code dir}. */
  static BenchStore open(String engine, Path dir, StoreOptions options) {
    return switch (engine) {
      case "frsm" -> FrsmStore.open(dir, options);
      case "rocksdb" -> RocksStore.open(dir, options);
      default -> throw new IllegalArgumentException("unknown engine " + engine);
    };
  }

  /** Writes one key and returns once the write is synced to the engine's log. */
  void putSynced(byte[] key, byte[] value);

  /**
   * Writes keys {@code [from, from + count)} with 512-byte values as fast as the engine takes them
   * (frsm: many writes in flight; RocksDB: unsynced WAL writes), all durable when it returns. For
   * setup, never measured.
   */
  void load(long from, long count);

  /** The key's value, or null. */
  byte[] get(byte[] key);

  /**
   * Reads about {@code approxKeys} consecutive keys starting at the random position {@code start}
   * of a data set of {@code datasetKeys} keys; returns how many it read. frsm reads the token range
   * {@code [start, start + width]} whose width holds {@code approxKeys} keys on average; RocksDB
   * seeks to the key bytes of {@code start} and reads {@code approxKeys} keys.
   */
  int scan(long start, int approxKeys, long datasetKeys);

  /** Flushes memtables to tables and waits. */
  void flush();

  /** Compacts every table into one and waits. */
  void compactAll();

  /** Bytes of all live table files. */
  long tableBytes();

  /** Number of live table files. */
  int tableCount();

  @Override
  void close();
}
