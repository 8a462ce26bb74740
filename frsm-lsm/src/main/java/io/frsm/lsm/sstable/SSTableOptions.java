package io.frsm.lsm.sstable;

/**
 * How a table is written.
 *
 * @param blockSizeBytes a data block is closed once it reaches this size, so blocks are this size
 *     plus at most one cell. Default 4 KiB: frsm's load is random point reads of small cells, and a
 *     block-cache miss reads, checksums and keeps one whole block, so the block size is the read
 *     amplification of every miss; 4 KiB is one page and one SSD read unit, and matches RocksDB's
 *     default, which is the baseline we are measured against. The cost is a larger in-memory index
 *     (about 1/100 of the data for 30-byte keys), which is cheap next to the bloom filter.
 * @param bloomBitsPerKey bloom filter bits per key; 10 gives about 0.8% false positives. 0 writes
 *     no filter.
 */
public record SSTableOptions(int blockSizeBytes, int bloomBitsPerKey) {
  public static final int DEFAULT_BLOCK_SIZE_BYTES = 4 * 1024;
  public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;

  public SSTableOptions {
    if (blockSizeBytes < 256 || blockSizeBytes > 64 * 1024 * 1024) {
      throw new IllegalArgumentException(
          "blockSizeBytes must be in [256, 64 MiB], got " + blockSizeBytes);
    }
    if (bloomBitsPerKey < 0 || bloomBitsPerKey > 64) {
      throw new IllegalArgumentException(
          "bloomBitsPerKey must be in [0, 64], got " + bloomBitsPerKey);
    }
  }

  public static SSTableOptions defaults() {
    return new SSTableOptions(DEFAULT_BLOCK_SIZE_BYTES, DEFAULT_BLOOM_BITS_PER_KEY);
  }
}
