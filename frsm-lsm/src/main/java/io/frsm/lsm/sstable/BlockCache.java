package io.frsm.lsm.sstable;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Verified data blocks shared by every reader of one engine, bounded by their bytes (Caffeine,
 * W-TinyLFU). Keyed by (reader id, block offset): ids are handed out by the cache and never reused,
 * so a reopened or replaced file can never be served another file's blocks. Cached blocks passed
 * their checksum when read and are immutable, so hits skip the checksum.
 *
 * <p>Thread-safe.
 */
public final class BlockCache {
  private record BlockKey(long readerId, long offset) {}

  private final Cache<BlockKey, DataBlock> cache; // null: disabled
  private final long capacityBytes;
  private final AtomicLong nextReaderId = new AtomicLong();

  private BlockCache(Cache<BlockKey, DataBlock> cache, long capacityBytes) {
    this.cache = cache;
    this.capacityBytes = capacityBytes;
  }

  /**
   * A cache holding at most {@code capacityBytes} of blocks; registers Caffeine's hit, miss and
   * eviction meters under the name {@code frsm.sstable.block.cache} and the gauge {@code
   * frsm.sstable.block.cache.bytes}.
   */
  public static BlockCache create(long capacityBytes, MeterRegistry registry) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("capacityBytes must be > 0, got " + capacityBytes);
    }
    Cache<BlockKey, DataBlock> cache =
        Caffeine.newBuilder()
            .maximumWeight(capacityBytes)
            .weigher((BlockKey key, DataBlock block) -> block.weightBytes())
            // Maintenance on the calling threads: no dependency on the common pool, and the
            // weight bound holds as soon as a write returns.
            .executor(Runnable::run)
            .recordStats()
            .build();
    CaffeineCacheMetrics.monitor(registry, cache, "frsm.sstable.block.cache");
    BlockCache blockCache = new BlockCache(cache, capacityBytes);
    Gauge.builder("frsm.sstable.block.cache.bytes", blockCache, BlockCache::sizeBytes)
        .description("bytes of data blocks held by the block cache")
        .baseUnit("bytes")
        .register(registry);
    return blockCache;
  }

  /** A cache that holds nothing: every block access reads the file. */
  public static BlockCache disabled() {
    return new BlockCache(null, 0);
  }

  long newReaderId() {
    return nextReaderId.incrementAndGet();
  }

  DataBlock get(long readerId, long offset) {
    return cache == null ? null : cache.getIfPresent(new BlockKey(readerId, offset));
  }

  void put(long readerId, long offset, DataBlock block) {
    if (cache != null) {
      cache.put(new BlockKey(readerId, offset), block);
    }
  }

  /**
   * Drops one file's blocks. {@link SSTableReader#close()} calls it; the blocks of a forgotten
   * reader would otherwise only age out. Costs a scan of the cache.
   */
  public void invalidate(SSTableReader reader) {
    invalidate(reader.readerId());
  }

  void invalidate(long readerId) {
    if (cache != null) {
      cache.asMap().keySet().removeIf(key -> key.readerId() == readerId);
    }
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes of blocks held now. */
  public long sizeBytes() {
    if (cache == null) {
      return 0;
    }
    cache.cleanUp();
    return cache.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
