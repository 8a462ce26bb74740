package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code lsm} section: every tunable of the storage engine under its {@link
 * LsmConfig} name. The engine holds their defaults (the paper's Table 3 where it gives one) and
 * checks their values and the rules between them when the config is built; docs/OPERATIONS.md
 * "Storage engine configuration" says what each one does.
 */
public final class LsmKeys {
  private LsmKeys() {}

  /** The engine's defaults; its directories are not keys of this section. */
  static final LsmConfig ENGINE_DEFAULTS = LsmConfig.builder(Path.of("data")).build();

  public static final ConfigKey<Double> FLUSH_LARGEST_MEMTABLES_HEAP_FRACTION =
      ConfigKey.lsm(
              "flushLargestMemtablesHeapFraction",
              ValueType.DECIMAL,
              LsmConfig::flushLargestMemtablesHeapFraction,
              LsmConfig.Builder::flushLargestMemtablesHeapFraction)
          .doc("heap used fraction that forces a flush");

  public static final ConfigKey<Duration> MEMTABLE_LIFETIME =
      ConfigKey.lsm(
              "memtableLifetime",
              ValueType.DURATION,
              LsmConfig::memtableLifetime,
              LsmConfig.Builder::memtableLifetime)
          .doc("a memtable this old is flushed");

  public static final ConfigKey<Long> MIN_FLUSH_LARGEST_MEMTABLE_BYTES =
      ConfigKey.lsm(
              "minFlushLargestMemtableBytes",
              ValueType.BYTES,
              LsmConfig::minFlushLargestMemtableBytes,
              LsmConfig.Builder::minFlushLargestMemtableBytes)
          .doc("heap pressure flushes only memtables at least this large");

  public static final ConfigKey<Long> MEMTABLE_FLUSH_SIZE_BYTES =
      ConfigKey.lsm(
              "memtableFlushSizeBytes",
              ValueType.BYTES,
              LsmConfig::memtableFlushSizeBytes,
              LsmConfig.Builder::memtableFlushSizeBytes)
          .doc("a memtable this large (estimated heap) is flushed");

  public static final ConfigKey<Long> MAX_COMMIT_LOG_SIZE_ON_DISK_BYTES =
      ConfigKey.lsm(
              "maxCommitLogSizeOnDiskBytes",
              ValueType.BYTES,
              LsmConfig::maxCommitLogSizeOnDiskBytes,
              LsmConfig.Builder::maxCommitLogSizeOnDiskBytes)
          .doc("above it, the memtable pinning old segments is flushed");

  public static final ConfigKey<Long> COMMIT_LOG_ROTATION_THRESHOLD_BYTES =
      ConfigKey.lsm(
              "commitLogRotationThresholdBytes",
              ValueType.BYTES,
              LsmConfig::commitLogRotationThresholdBytes,
              LsmConfig.Builder::commitLogRotationThresholdBytes)
          .doc("the size of one commit-log segment");

  public static final ConfigKey<GroupCommitWindow> COMMIT_LOG_GROUP_COMMIT_WINDOW =
      ConfigKey.lsm(
              "commitLogGroupCommitWindow",
              ValueType.GROUP_COMMIT_WINDOW,
              LsmConfig::commitLogGroupCommitWindow,
              LsmConfig.Builder::commitLogGroupCommitWindow)
          .doc("how long a stripe waits for more records before a group commit of two or more");

  public static final ConfigKey<Boolean> COMMIT_LOG_PREALLOCATE_SEGMENTS =
      ConfigKey.lsm(
              "commitLogPreallocateSegments",
              ValueType.BOOLEAN,
              LsmConfig::commitLogPreallocateSegments,
              LsmConfig.Builder::commitLogPreallocateSegments)
          .doc("write each new segment with zeros first, so a sync persists data only");

  public static final ConfigKey<Integer> NUMBER_OF_COMPACTION_THREADS =
      ConfigKey.lsm(
              "numberOfCompactionThreads",
              ValueType.INTEGER,
              LsmConfig::numberOfCompactionThreads,
              LsmConfig.Builder::numberOfCompactionThreads)
          .doc("compaction threads");

  public static final ConfigKey<Long> COMPACTION_THROUGHPUT_LIMIT_BYTES_PER_SECOND =
      ConfigKey.lsm(
              "compactionThroughputLimitBytesPerSecond",
              ValueType.BYTES,
              LsmConfig::compactionThroughputLimitBytesPerSecond,
              LsmConfig.Builder::compactionThroughputLimitBytesPerSecond)
          .doc("bytes written per second by all compactions together");

  public static final ConfigKey<Integer> MINOR_COMPACTION_MIN_TABLES =
      ConfigKey.lsm(
              "minorCompactionMinTables",
              ValueType.INTEGER,
              LsmConfig::minorCompactionMinTables,
              LsmConfig.Builder::minorCompactionMinTables)
          .doc("this many similar-sized tables start a minor compaction");

  public static final ConfigKey<Integer> MINOR_COMPACTION_MAX_TABLES =
      ConfigKey.lsm(
              "minorCompactionMaxTables",
              ValueType.INTEGER,
              LsmConfig::minorCompactionMaxTables,
              LsmConfig.Builder::minorCompactionMaxTables)
          .doc("at most this many tables in one minor compaction");

  public static final ConfigKey<Duration> TOMBSTONE_GRACE_PERIOD =
      ConfigKey.lsm(
              "tombstoneGracePeriod",
              ValueType.DURATION,
              LsmConfig::tombstoneGracePeriod,
              LsmConfig.Builder::tombstoneGracePeriod)
          .doc("a purged delete is dropped by compaction only after this");

  public static final ConfigKey<Duration> TOMBSTONE_COMPACTION_INTERVAL =
      ConfigKey.lsm(
              "tombstoneCompactionInterval",
              ValueType.DURATION,
              LsmConfig::tombstoneCompactionInterval,
              LsmConfig.Builder::tombstoneCompactionInterval)
          .doc("purge compactions (major, for purged deletes past grace) start at most this often");

  public static final ConfigKey<Integer> MAX_KEY_SIZE_BYTES =
      ConfigKey.lsm(
              "maxKeySizeBytes",
              ValueType.INT_BYTES,
              LsmConfig::maxKeySizeBytes,
              LsmConfig.Builder::maxKeySizeBytes)
          .doc("larger keys are rejected before anything is written");

  public static final ConfigKey<Integer> MAX_VALUE_SIZE_BYTES =
      ConfigKey.lsm(
              "maxValueSizeBytes",
              ValueType.INT_BYTES,
              LsmConfig::maxValueSizeBytes,
              LsmConfig.Builder::maxValueSizeBytes)
          .doc("larger values are rejected before anything is written");

  public static final ConfigKey<Integer> MAX_FROZEN_MEMTABLES =
      ConfigKey.lsm(
              "maxFrozenMemtables",
              ValueType.INTEGER,
              LsmConfig::maxFrozenMemtables,
              LsmConfig.Builder::maxFrozenMemtables)
          .doc(
              "while this many memtables wait for their flush, writes wait for room and the node"
                  + " refuses new ones");

  public static final ConfigKey<Integer> SSTABLE_BLOCK_SIZE_BYTES =
      ConfigKey.lsm(
              "sstableBlockSizeBytes",
              ValueType.INT_BYTES,
              LsmConfig::sstableBlockSizeBytes,
              LsmConfig.Builder::sstableBlockSizeBytes)
          .doc("the data block size of an SSTable");

  public static final ConfigKey<Integer> BLOOM_BITS_PER_KEY =
      ConfigKey.lsm(
              "bloomBitsPerKey",
              ValueType.INTEGER,
              LsmConfig::bloomBitsPerKey,
              LsmConfig.Builder::bloomBitsPerKey)
          .doc("bloom filter bits per key");

  public static final ConfigKey<Long> BLOCK_CACHE_SIZE_BYTES =
      ConfigKey.lsm(
              "blockCacheSizeBytes",
              ValueType.BYTES,
              LsmConfig::blockCacheSizeBytes,
              LsmConfig.Builder::blockCacheSizeBytes)
          .doc("the SSTable block cache; 0 disables it");

  public static final ConfigKey<Boolean> SKIP_CORRUPT_COMMIT_LOG_TAIL =
      ConfigKey.lsm(
              "skipCorruptCommitLogTail",
              ValueType.BOOLEAN,
              LsmConfig::skipCorruptCommitLogTail,
              LsmConfig.Builder::skipCorruptCommitLogTail)
          .doc(
              "on a checksum failure mid-segment, skip the rest of it instead of refusing to open");

  public static final ConfigKey<Boolean> SCRUB_ENABLED =
      ConfigKey.lsm(
              "scrubEnabled",
              ValueType.BOOLEAN,
              LsmConfig::scrubEnabled,
              LsmConfig.Builder::scrubEnabled)
          .doc("the background scrub verifies every data block of every table; false turns it off");

  public static final ConfigKey<Long> SCRUB_THROUGHPUT_BYTES_PER_SECOND =
      ConfigKey.lsm(
              "scrubThroughputBytesPerSecond",
              ValueType.BYTES,
              LsmConfig::scrubThroughputBytesPerSecond,
              LsmConfig.Builder::scrubThroughputBytesPerSecond)
          .doc("the scrub's read budget per second");

  public static final ConfigKey<Duration> SCRUB_START_DELAY =
      ConfigKey.lsm(
              "scrubStartDelay",
              ValueType.DURATION,
              LsmConfig::scrubStartDelay,
              LsmConfig.Builder::scrubStartDelay)
          .doc("how long after start the scrub begins or resumes its pass");

  static final List<ConfigKey<?>> ALL =
      List.of(
          FLUSH_LARGEST_MEMTABLES_HEAP_FRACTION,
          MEMTABLE_LIFETIME,
          MIN_FLUSH_LARGEST_MEMTABLE_BYTES,
          MEMTABLE_FLUSH_SIZE_BYTES,
          MAX_COMMIT_LOG_SIZE_ON_DISK_BYTES,
          COMMIT_LOG_ROTATION_THRESHOLD_BYTES,
          COMMIT_LOG_GROUP_COMMIT_WINDOW,
          COMMIT_LOG_PREALLOCATE_SEGMENTS,
          NUMBER_OF_COMPACTION_THREADS,
          COMPACTION_THROUGHPUT_LIMIT_BYTES_PER_SECOND,
          MINOR_COMPACTION_MIN_TABLES,
          MINOR_COMPACTION_MAX_TABLES,
          TOMBSTONE_GRACE_PERIOD,
          TOMBSTONE_COMPACTION_INTERVAL,
          MAX_KEY_SIZE_BYTES,
          MAX_VALUE_SIZE_BYTES,
          MAX_FROZEN_MEMTABLES,
          SSTABLE_BLOCK_SIZE_BYTES,
          BLOOM_BITS_PER_KEY,
          BLOCK_CACHE_SIZE_BYTES,
          SKIP_CORRUPT_COMMIT_LOG_TAIL,
          SCRUB_ENABLED,
          SCRUB_THROUGHPUT_BYTES_PER_SECOND,
          SCRUB_START_DELAY);
}
