package io.frsm.bench.lsm;

import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * {@link BenchStore} on RocksDB, configured like frsm: 4 KiB blocks, 10-bit bloom filters, an LRU
 * block cache of the same size, a write buffer as large as frsm's memtable, no compression (frsm
 * does not compress; the values are random anyway), and every measured write with {@code
 * WriteOptions.setSync(true)} (the WAL is fsynced before the write returns).
 */
public final class RocksStore implements BenchStore {
  static {
    RocksDB.loadLibrary();
  }

  private final LRUCache cache;
  private final BloomFilter bloom;
  private final Options options;
  private final RocksDB db;
  private final WriteOptions synced = new WriteOptions().setSync(true);
  private final WriteOptions unsynced = new WriteOptions().setSync(false);
  private final ReadOptions reads = new ReadOptions();

  private RocksStore(LRUCache cache, BloomFilter bloom, Options options, RocksDB db) {
    this.cache = cache;
    this.bloom = bloom;
    this.options = options;
    this.db = db;
  }

  static RocksStore open(Path dir, StoreOptions settings) {
    return open(dir, settings, false);
  }

  /**
   * Opens (or creates) the database in {@code dir}. {@code replayOnly}: recovery replays the WAL
   * into the memtable without flushing it (for the replay benchmark).
   */
  public static RocksStore open(Path dir, StoreOptions settings, boolean replayOnly) {
    LRUCache cache = new LRUCache(settings.blockCacheBytes());
    BloomFilter bloom = new BloomFilter(StoreOptions.BLOOM_BITS_PER_KEY, false);
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockSize(StoreOptions.BLOCK_BYTES)
            .setFilterPolicy(bloom)
            .setBlockCache(cache);
    Options options =
        new Options()
            .setCreateIfMissing(true)
            .setCompressionType(CompressionType.NO_COMPRESSION)
            .setBottommostCompressionType(CompressionType.NO_COMPRESSION)
            .setWriteBufferSize(settings.memtableBytes())
            .setMaxBackgroundJobs(2)
            .setDisableAutoCompactions(!settings.backgroundCompaction())
            .setAvoidFlushDuringRecovery(replayOnly)
            .setTableFormatConfig(table);
    try {
      return new RocksStore(cache, bloom, options, RocksDB.open(options, dir.toString()));
    } catch (RocksDBException e) {
      options.close();
      bloom.close();
      cache.close();
      throw new IllegalStateException("cannot open RocksDB in " + dir, e);
    }
  }

  @Override
  public void putSynced(byte[] key, byte[] value) {
    try {
      db.put(synced, key, value);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void load(long from, long count) {
    try {
      for (long i = from; i < from + count; i++) {
        db.put(unsynced, BenchKeys.key(i), BenchKeys.value());
      }
      db.flushWal(true);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(reads, key);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int scan(long start, int approxKeys, long datasetKeys) {
    byte[] seek = new byte[BenchKeys.KEY_BYTES];
    BenchKeys.putLong(seek, 0, start); // big-endian: byte order follows the position
    int n = 0;
    try (RocksIterator it = db.newIterator(reads)) {
      for (it.seek(seek); it.isValid() && n < approxKeys; it.next()) {
        it.value();
        n++;
      }
    }
    return n;
  }

  @Override
  public void flush() {
    try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
      db.flush(f);
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void compactAll() {
    try {
      db.compactRange();
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public long tableBytes() {
    try {
      return db.getLongProperty("rocksdb.total-sst-files-size");
    } catch (RocksDBException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int tableCount() {
    return db.getLiveFilesMetaData().size();
  }

  @Override
  public void close() {
    db.close();
    synced.close();
    unsynced.close();
    reads.close();
    options.close();
    bloom.close();
    cache.close();
  }
}
