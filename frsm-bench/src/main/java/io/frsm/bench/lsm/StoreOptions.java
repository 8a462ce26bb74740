package io.frsm.bench.lsm;

/**
 * The settings both engines get alike: block cache capacity and memtable (RocksDB write buffer)
 * size. Block size (4 KiB), bloom bits per key (10) and no compression are fixed for both.
 *
 * @param blockCacheBytes frsm {@code blockCacheSizeBytes}; RocksDB {@code LRUCache} capacity
 * @param memtableBytes frsm {@code memtableFlushSizeBytes}; RocksDB {@code write_buffer_size}
 * @param backgroundCompaction false: neither engine compacts unless told to (frsm's minor
 *     compaction threshold is set out of reach, RocksDB's auto compactions are disabled)
 */
public record StoreOptions(long blockCacheBytes, long memtableBytes, boolean backgroundCompaction) {
  public static final int BLOCK_BYTES = 4096;
  public static final int BLOOM_BITS_PER_KEY = 10;
  public static final long MIB = 1024L * 1024;

  /** frsm's defaults for cache and memtable, with background compaction. */
  public static StoreOptions defaults() {
    return new StoreOptions(256 * MIB, 64 * MIB, true);
  }
}
