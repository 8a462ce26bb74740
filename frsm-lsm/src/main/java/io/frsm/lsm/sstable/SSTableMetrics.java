package io.frsm.lsm.sstable;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;

/**
 * Read-path counters shared by every reader of one engine. Thread-safe.
 *
 * <ul>
 *   <li>{@code frsm.sstable.bloom.negatives}: lookups the bloom filter answered "absent";
 *   <li>{@code frsm.sstable.bloom.false.positives}: the filter said "maybe" but the key's block did
 *       not hold it (a wasted block access);
 *   <li>{@code frsm.sstable.block.reads}: data blocks read from the file;
 *   <li>{@code frsm.sstable.block.cache.hits}: data blocks served from the block cache.
 * </ul>
 */
public final class SSTableMetrics {
  private final Counter bloomNegatives;
  private final Counter bloomFalsePositives;
  private final Counter blockReads;
  private final Counter blockCacheHits;

  public SSTableMetrics(MeterRegistry registry) {
    bloomNegatives =
        Counter.builder("frsm.sstable.bloom.negatives")
            .description("point lookups the bloom filter answered absent")
            .register(registry);
    bloomFalsePositives =
        Counter.builder("frsm.sstable.bloom.false.positives")
            .description("bloom filter said maybe, the block did not hold the key")
            .register(registry);
    blockReads =
        Counter.builder("frsm.sstable.block.reads")
            .description("data blocks read from SSTable files")
            .register(registry);
    blockCacheHits =
        Counter.builder("frsm.sstable.block.cache.hits")
            .description("data blocks served from the block cache")
            .register(registry);
  }

  /** Counters that go nowhere (a registry without backends records nothing). */
  public static SSTableMetrics noop() {
    return new SSTableMetrics(new CompositeMeterRegistry());
  }

  void bloomNegative() {
    bloomNegatives.increment();
  }

  void bloomFalsePositive() {
    bloomFalsePositives.increment();
  }

  void blockRead() {
    blockReads.increment();
  }

  void blockCacheHit() {
    blockCacheHits.increment();
  }
}
