package io.frsm.lsm;

import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Every tunable of the storage engine, validated, with the paper's defaults (NSDI '20 Table 3)
 * where the paper gives one. Units are in the names. Built with {@link #builder(Path)}; immutable.
 *
 * <p>Table 3 maps to: {@code flush_largest_memtables} → {@link #flushLargestMemtablesHeapFraction},
 * {@code default_memtable_lifetime} → {@link #memtableLifetime}, {@code min_flush_largest_memtable}
 * → {@link #minFlushLargestMemtableBytes}, {@code max_commit_log_size_on_disk} → {@link
 * #maxCommitLogSizeOnDiskBytes}, {@code commitlog_rotation_threshold} → {@link
 * #commitLogRotationThresholdBytes}, {@code number_of_compaction_threads} → {@link
 * #numberOfCompactionThreads}, {@code compaction_throughput_limit} → {@link
 * #compactionThroughputLimitBytesPerSecond}. {@code max_heap_size} is the JVM's {@code -Xmx}; the
 * heap-pressure check reads it from the runtime.
 */
public final class LsmConfig {
  public static final long MIB = 1024L * 1024;

  private final Path dataDirectory;
  private final List<Path> commitLogDirectories;
  private final double flushLargestMemtablesHeapFraction;
  private final Duration memtableLifetime;
  private final long minFlushLargestMemtableBytes;
  private final long memtableFlushSizeBytes;
  private final long maxCommitLogSizeOnDiskBytes;
  private final long commitLogRotationThresholdBytes;
  private final GroupCommitWindow commitLogGroupCommitWindow;
  private final boolean commitLogPreallocateSegments;
  private final int numberOfCompactionThreads;
  private final long compactionThroughputLimitBytesPerSecond;
  private final int minorCompactionMinTables;
  private final int minorCompactionMaxTables;
  private final Duration tombstoneGracePeriod;
  private final Duration tombstoneCompactionInterval;
  private final int maxKeySizeBytes;
  private final int maxValueSizeBytes;
  private final int sstableBlockSizeBytes;
  private final int bloomBitsPerKey;
  private final long blockCacheSizeBytes;
  private final boolean skipCorruptCommitLogTail;
  private final int maxFrozenMemtables;
  private final boolean scrubEnabled;
  private final long scrubThroughputBytesPerSecond;
  private final Duration scrubStartDelay;

  private LsmConfig(Builder b) {
    this.dataDirectory = b.dataDirectory;
    this.commitLogDirectories =
        b.commitLogDirectories == null
            ? List.of(b.dataDirectory.resolve("commitlog"))
            : List.copyOf(b.commitLogDirectories);
    this.flushLargestMemtablesHeapFraction = b.flushLargestMemtablesHeapFraction;
    this.memtableLifetime = b.memtableLifetime;
    this.minFlushLargestMemtableBytes = b.minFlushLargestMemtableBytes;
    this.memtableFlushSizeBytes = b.memtableFlushSizeBytes;
    this.maxCommitLogSizeOnDiskBytes = b.maxCommitLogSizeOnDiskBytes;
    this.commitLogRotationThresholdBytes = b.commitLogRotationThresholdBytes;
    this.commitLogGroupCommitWindow = b.commitLogGroupCommitWindow;
    this.commitLogPreallocateSegments = b.commitLogPreallocateSegments;
    this.numberOfCompactionThreads = b.numberOfCompactionThreads;
    this.compactionThroughputLimitBytesPerSecond = b.compactionThroughputLimitBytesPerSecond;
    this.minorCompactionMinTables = b.minorCompactionMinTables;
    this.minorCompactionMaxTables = b.minorCompactionMaxTables;
    this.tombstoneGracePeriod = b.tombstoneGracePeriod;
    this.tombstoneCompactionInterval = b.tombstoneCompactionInterval;
    this.maxKeySizeBytes = b.maxKeySizeBytes;
    this.maxValueSizeBytes = b.maxValueSizeBytes;
    this.sstableBlockSizeBytes = b.sstableBlockSizeBytes;
    this.bloomBitsPerKey = b.bloomBitsPerKey;
    this.blockCacheSizeBytes = b.blockCacheSizeBytes;
    this.skipCorruptCommitLogTail = b.skipCorruptCommitLogTail;
    this.maxFrozenMemtables = b.maxFrozenMemtables;
    this.scrubEnabled = b.scrubEnabled;
    this.scrubThroughputBytesPerSecond = b.scrubThroughputBytesPerSecond;
    this.scrubStartDelay = b.scrubStartDelay;
  }

  /**
   * Whether the background scrub verifies every data block of every table (issue 23 point 3). true.
   */
  public boolean scrubEnabled() {
    return scrubEnabled;
  }

  /** The scrub's read budget, in bytes per second of data blocks. 4 MiB/s. */
  public long scrubThroughputBytesPerSecond() {
    return scrubThroughputBytesPerSecond;
  }

  /** How long after the engine opens the scrub starts (or resumes) its pass. 5 min. */
  public Duration scrubStartDelay() {
    return scrubStartDelay;
  }

  public static Builder builder(Path dataDirectory) {
    return new Builder(dataDirectory);
  }

  /** SSTables and the manifest live here. */
  public Path dataDirectory() {
    return dataDirectory;
  }

  /** One directory per commit-log stripe; put each on its own device. Default: one stripe. */
  public List<Path> commitLogDirectories() {
    return commitLogDirectories;
  }

  /** Table 3 {@code flush_largest_memtables}: heap used fraction that forces a flush. 0.9. */
  public double flushLargestMemtablesHeapFraction() {
    return flushLargestMemtablesHeapFraction;
  }

  /** Table 3 {@code default_memtable_lifetime}: a memtable older than this is flushed. 30 min. */
  public Duration memtableLifetime() {
    return memtableLifetime;
  }

  /**
   * Table 3 {@code min_flush_largest_memtable}: heap pressure flushes only memtables ≥ this. 20 MB.
   */
  public long minFlushLargestMemtableBytes() {
    return minFlushLargestMemtableBytes;
  }

  /** A memtable reaching this many bytes (estimated heap) is flushed. 64 MiB. */
  public long memtableFlushSizeBytes() {
    return memtableFlushSizeBytes;
  }

  /** Table 3 {@code max_commit_log_size_on_disk}: above it, flush what pins old segments. 1 GB. */
  public long maxCommitLogSizeOnDiskBytes() {
    return maxCommitLogSizeOnDiskBytes;
  }

  /** Table 3 {@code commitlog_rotation_threshold}: size of one commit-log segment. 64 MB. */
  public long commitLogRotationThresholdBytes() {
    return commitLogRotationThresholdBytes;
  }

  /**
   * How long a commit-log stripe waits for more records before a group commit that already holds
   * two or more (a lone record never waits). By default ({@link GroupCommitWindow#AUTO}) twice the
   * stripe's recent sync time, at most 1 ms. Not in the paper; see {@link
   * io.frsm.lsm.commitlog.CommitLogConfig#groupCommitWindow()}.
   */
  public GroupCommitWindow commitLogGroupCommitWindow() {
    return commitLogGroupCommitWindow;
  }

  /**
   * Whether new commit-log segments are written with zeros to their full size, in the background,
   * before records go in (default true): a group commit's sync then persists data only. Not in the
   * paper; see {@link io.frsm.lsm.commitlog.CommitLogConfig#preallocateSegments()}. Turn off on
   * copy-on-write file systems.
   */
  public boolean commitLogPreallocateSegments() {
    return commitLogPreallocateSegments;
  }

  /** Table 3 {@code number_of_compaction_threads}. 2. */
  public int numberOfCompactionThreads() {
    return numberOfCompactionThreads;
  }

  /** Table 3 {@code compaction_throughput_limit}, bytes written per second per engine. 64 MB/s. */
  public long compactionThroughputLimitBytesPerSecond() {
    return compactionThroughputLimitBytesPerSecond;
  }

  /** Size-tiered minor compaction starts when this many similar-sized tables exist. 4. */
  public int minorCompactionMinTables() {
    return minorCompactionMinTables;
  }

  /** At most this many tables in one minor compaction. 32. */
  public int minorCompactionMaxTables() {
    return minorCompactionMaxTables;
  }

  /** A purged delete is dropped by compaction only after this. 24 h. */
  public Duration tombstoneGracePeriod() {
    return tombstoneGracePeriod;
  }

  /**
   * The least time between two purge compactions: a major compaction starts once a purge mark the
   * engine flushed into a table (or a compaction kept) is older than the grace period, at most once
   * per this interval (docs/OPERATIONS.md "Deletes and space"). 1 h.
   */
  public Duration tombstoneCompactionInterval() {
    return tombstoneCompactionInterval;
  }

  /** Larger keys are rejected before anything is written. 64 KiB. */
  public int maxKeySizeBytes() {
    return maxKeySizeBytes;
  }

  /** Larger values are rejected before anything is written. 1 MiB. */
  public int maxValueSizeBytes() {
    return maxValueSizeBytes;
  }

  public int sstableBlockSizeBytes() {
    return sstableBlockSizeBytes;
  }

  public int bloomBitsPerKey() {
    return bloomBitsPerKey;
  }

  /** Capacity of the SSTable block cache. 256 MiB. 0 disables it. */
  public long blockCacheSizeBytes() {
    return blockCacheSizeBytes;
  }

  /**
   * On a commit-log checksum failure in the middle of a segment: false (default) refuses to open,
   * naming the file and offset; true logs it and skips the rest of that segment.
   */
  public boolean skipCorruptCommitLogTail() {
    return skipCorruptCommitLogTail;
  }

  /**
   * Write stall bound: while this many frozen memtables wait for their flush (the disk is slow or
   * full), new writes fail at once with an IOException instead of filling the heap. 4.
   */
  public int maxFrozenMemtables() {
    return maxFrozenMemtables;
  }

  @Override
  public String toString() {
    return "LsmConfig{dataDirectory="
        + dataDirectory
        + ", commitLogDirectories="
        + commitLogDirectories
        + ", flushLargestMemtablesHeapFraction="
        + flushLargestMemtablesHeapFraction
        + ", memtableLifetime="
        + memtableLifetime
        + ", minFlushLargestMemtableBytes="
        + minFlushLargestMemtableBytes
        + ", memtableFlushSizeBytes="
        + memtableFlushSizeBytes
        + ", maxCommitLogSizeOnDiskBytes="
        + maxCommitLogSizeOnDiskBytes
        + ", commitLogRotationThresholdBytes="
        + commitLogRotationThresholdBytes
        + ", commitLogGroupCommitWindow="
        + commitLogGroupCommitWindow
        + ", commitLogPreallocateSegments="
        + commitLogPreallocateSegments
        + ", numberOfCompactionThreads="
        + numberOfCompactionThreads
        + ", compactionThroughputLimitBytesPerSecond="
        + compactionThroughputLimitBytesPerSecond
        + ", tombstoneGracePeriod="
        + tombstoneGracePeriod
        + ", tombstoneCompactionInterval="
        + tombstoneCompactionInterval
        + ", maxKeySizeBytes="
        + maxKeySizeBytes
        + ", maxValueSizeBytes="
        + maxValueSizeBytes
        + ", minorCompactionMinTables="
        + minorCompactionMinTables
        + ", minorCompactionMaxTables="
        + minorCompactionMaxTables
        + ", sstableBlockSizeBytes="
        + sstableBlockSizeBytes
        + ", bloomBitsPerKey="
        + bloomBitsPerKey
        + ", blockCacheSizeBytes="
        + blockCacheSizeBytes
        + ", skipCorruptCommitLogTail="
        + skipCorruptCommitLogTail
        + ", maxFrozenMemtables="
        + maxFrozenMemtables
        + ", scrubEnabled="
        + scrubEnabled
        + ", scrubThroughputBytesPerSecond="
        + scrubThroughputBytesPerSecond
        + ", scrubStartDelay="
        + scrubStartDelay
        + "}";
  }

  /** Mutable builder; {@link #build()} validates every field and names the one that is wrong. */
  public static final class Builder {
    private final Path dataDirectory;
    private List<Path> commitLogDirectories;
    private double flushLargestMemtablesHeapFraction = 0.9;
    private Duration memtableLifetime = Duration.ofMinutes(30);
    private long minFlushLargestMemtableBytes = 20 * MIB;
    private long memtableFlushSizeBytes = 64 * MIB;
    private long maxCommitLogSizeOnDiskBytes = 1024 * MIB;
    private long commitLogRotationThresholdBytes = 64 * MIB;
    private GroupCommitWindow commitLogGroupCommitWindow =
        CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW;
    private boolean commitLogPreallocateSegments = CommitLogConfig.DEFAULT_PREALLOCATE_SEGMENTS;
    private int numberOfCompactionThreads = 2;
    private long compactionThroughputLimitBytesPerSecond = 64 * MIB;
    private int minorCompactionMinTables = 4;
    private int minorCompactionMaxTables = 32;
    private Duration tombstoneGracePeriod = Duration.ofHours(24);
    private Duration tombstoneCompactionInterval = Duration.ofHours(1);
    private int maxKeySizeBytes = 64 * 1024;
    private int maxValueSizeBytes = (int) MIB;
    private int sstableBlockSizeBytes = 4 * 1024;
    private int bloomBitsPerKey = 10;
    private long blockCacheSizeBytes = 256 * MIB;
    private boolean skipCorruptCommitLogTail;
    private int maxFrozenMemtables = 4;
    private boolean scrubEnabled = true;
    private long scrubThroughputBytesPerSecond = 4 * MIB;
    private Duration scrubStartDelay = Duration.ofMinutes(5);

    private Builder(Path dataDirectory) {
      this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
    }

    /** Copies every tunable of {@code other} (not its directories) into this builder. */
    public Builder tunablesFrom(LsmConfig other) {
      flushLargestMemtablesHeapFraction = other.flushLargestMemtablesHeapFraction;
      memtableLifetime = other.memtableLifetime;
      minFlushLargestMemtableBytes = other.minFlushLargestMemtableBytes;
      memtableFlushSizeBytes = other.memtableFlushSizeBytes;
      maxCommitLogSizeOnDiskBytes = other.maxCommitLogSizeOnDiskBytes;
      commitLogRotationThresholdBytes = other.commitLogRotationThresholdBytes;
      commitLogGroupCommitWindow = other.commitLogGroupCommitWindow;
      commitLogPreallocateSegments = other.commitLogPreallocateSegments;
      numberOfCompactionThreads = other.numberOfCompactionThreads;
      compactionThroughputLimitBytesPerSecond = other.compactionThroughputLimitBytesPerSecond;
      minorCompactionMinTables = other.minorCompactionMinTables;
      minorCompactionMaxTables = other.minorCompactionMaxTables;
      tombstoneGracePeriod = other.tombstoneGracePeriod;
      tombstoneCompactionInterval = other.tombstoneCompactionInterval;
      maxKeySizeBytes = other.maxKeySizeBytes;
      maxValueSizeBytes = other.maxValueSizeBytes;
      sstableBlockSizeBytes = other.sstableBlockSizeBytes;
      bloomBitsPerKey = other.bloomBitsPerKey;
      blockCacheSizeBytes = other.blockCacheSizeBytes;
      skipCorruptCommitLogTail = other.skipCorruptCommitLogTail;
      maxFrozenMemtables = other.maxFrozenMemtables;
      scrubEnabled = other.scrubEnabled;
      scrubThroughputBytesPerSecond = other.scrubThroughputBytesPerSecond;
      scrubStartDelay = other.scrubStartDelay;
      return this;
    }

    public Builder commitLogDirectories(List<Path> dirs) {
      this.commitLogDirectories = List.copyOf(dirs);
      return this;
    }

    public Builder flushLargestMemtablesHeapFraction(double v) {
      this.flushLargestMemtablesHeapFraction = v;
      return this;
    }

    public Builder memtableLifetime(Duration v) {
      this.memtableLifetime = Objects.requireNonNull(v);
      return this;
    }

    public Builder minFlushLargestMemtableBytes(long v) {
      this.minFlushLargestMemtableBytes = v;
      return this;
    }

    public Builder memtableFlushSizeBytes(long v) {
      this.memtableFlushSizeBytes = v;
      return this;
    }

    public Builder maxCommitLogSizeOnDiskBytes(long v) {
      this.maxCommitLogSizeOnDiskBytes = v;
      return this;
    }

    public Builder commitLogRotationThresholdBytes(long v) {
      this.commitLogRotationThresholdBytes = v;
      return this;
    }

    public Builder commitLogGroupCommitWindow(GroupCommitWindow v) {
      this.commitLogGroupCommitWindow = Objects.requireNonNull(v);
      return this;
    }

    /** A fixed window in [0, 100 ms] (0: off); throws naming the setting outside it. */
    public Builder commitLogGroupCommitWindow(Duration fixed) {
      Objects.requireNonNull(fixed);
      try {
        return commitLogGroupCommitWindow(GroupCommitWindow.fixed(fixed));
      } catch (IllegalArgumentException e) {
        throw invalid(
            "commitLogGroupCommitWindow",
            "in [0, " + GroupCommitWindow.MAX.toMillis() + " ms]",
            fixed);
      }
    }

    public Builder commitLogPreallocateSegments(boolean v) {
      this.commitLogPreallocateSegments = v;
      return this;
    }

    public Builder numberOfCompactionThreads(int v) {
      this.numberOfCompactionThreads = v;
      return this;
    }

    public Builder compactionThroughputLimitBytesPerSecond(long v) {
      this.compactionThroughputLimitBytesPerSecond = v;
      return this;
    }

    public Builder minorCompactionMinTables(int v) {
      this.minorCompactionMinTables = v;
      return this;
    }

    public Builder minorCompactionMaxTables(int v) {
      this.minorCompactionMaxTables = v;
      return this;
    }

    public Builder tombstoneGracePeriod(Duration v) {
      this.tombstoneGracePeriod = Objects.requireNonNull(v);
      return this;
    }

    public Builder tombstoneCompactionInterval(Duration v) {
      this.tombstoneCompactionInterval = Objects.requireNonNull(v);
      return this;
    }

    public Builder maxKeySizeBytes(int v) {
      this.maxKeySizeBytes = v;
      return this;
    }

    public Builder maxValueSizeBytes(int v) {
      this.maxValueSizeBytes = v;
      return this;
    }

    public Builder sstableBlockSizeBytes(int v) {
      this.sstableBlockSizeBytes = v;
      return this;
    }

    public Builder bloomBitsPerKey(int v) {
      this.bloomBitsPerKey = v;
      return this;
    }

    public Builder blockCacheSizeBytes(long v) {
      this.blockCacheSizeBytes = v;
      return this;
    }

    public Builder skipCorruptCommitLogTail(boolean v) {
      this.skipCorruptCommitLogTail = v;
      return this;
    }

    public Builder maxFrozenMemtables(int v) {
      this.maxFrozenMemtables = v;
      return this;
    }

    public Builder scrubEnabled(boolean v) {
      this.scrubEnabled = v;
      return this;
    }

    public Builder scrubThroughputBytesPerSecond(long v) {
      this.scrubThroughputBytesPerSecond = v;
      return this;
    }

    public Builder scrubStartDelay(Duration v) {
      this.scrubStartDelay = Objects.requireNonNull(v, "scrubStartDelay");
      return this;
    }

    public LsmConfig build() {
      if (commitLogDirectories != null && commitLogDirectories.isEmpty()) {
        throw invalid("commitLogDirectories", "at least one directory", commitLogDirectories);
      }
      if (!(flushLargestMemtablesHeapFraction > 0 && flushLargestMemtablesHeapFraction <= 1)) {
        throw invalid(
            "flushLargestMemtablesHeapFraction", "in (0, 1]", flushLargestMemtablesHeapFraction);
      }
      if (memtableLifetime.isNegative() || memtableLifetime.isZero()) {
        throw invalid("memtableLifetime", "> 0", memtableLifetime);
      }
      positive("minFlushLargestMemtableBytes", minFlushLargestMemtableBytes);
      positive("memtableFlushSizeBytes", memtableFlushSizeBytes);
      positive("commitLogRotationThresholdBytes", commitLogRotationThresholdBytes);
      if (maxCommitLogSizeOnDiskBytes < commitLogRotationThresholdBytes) {
        throw invalid(
            "maxCommitLogSizeOnDiskBytes",
            ">= commitLogRotationThresholdBytes (" + commitLogRotationThresholdBytes + ")",
            maxCommitLogSizeOnDiskBytes);
      }
      if (numberOfCompactionThreads < 1 || numberOfCompactionThreads > 64) {
        throw invalid("numberOfCompactionThreads", "in [1, 64]", numberOfCompactionThreads);
      }
      positive("compactionThroughputLimitBytesPerSecond", compactionThroughputLimitBytesPerSecond);
      if (minorCompactionMinTables < 2) {
        throw invalid("minorCompactionMinTables", ">= 2", minorCompactionMinTables);
      }
      if (minorCompactionMaxTables < minorCompactionMinTables) {
        throw invalid(
            "minorCompactionMaxTables", ">= minorCompactionMinTables", minorCompactionMaxTables);
      }
      if (tombstoneGracePeriod.isNegative()) {
        throw invalid("tombstoneGracePeriod", ">= 0", tombstoneGracePeriod);
      }
      if (tombstoneCompactionInterval.isNegative()) {
        throw invalid("tombstoneCompactionInterval", ">= 0", tombstoneCompactionInterval);
      }
      if (maxKeySizeBytes < 1 || maxKeySizeBytes > 16 * MIB) {
        throw invalid("maxKeySizeBytes", "in [1, 16 MiB]", maxKeySizeBytes);
      }
      if (maxValueSizeBytes < 0 || maxValueSizeBytes > 64 * MIB) {
        throw invalid("maxValueSizeBytes", "in [0, 64 MiB]", maxValueSizeBytes);
      }
      if (sstableBlockSizeBytes < 512 || sstableBlockSizeBytes > 4 * MIB) {
        throw invalid("sstableBlockSizeBytes", "in [512, 4 MiB]", sstableBlockSizeBytes);
      }
      if (bloomBitsPerKey < 1 || bloomBitsPerKey > 64) {
        throw invalid("bloomBitsPerKey", "in [1, 64]", bloomBitsPerKey);
      }
      if (maxFrozenMemtables < 1) {
        throw invalid("maxFrozenMemtables", ">= 1", maxFrozenMemtables);
      }
      positive("scrubThroughputBytesPerSecond", scrubThroughputBytesPerSecond);
      if (scrubStartDelay.isNegative()) {
        throw invalid("scrubStartDelay", ">= 0", scrubStartDelay);
      }
      if (blockCacheSizeBytes < 0) {
        throw invalid("blockCacheSizeBytes", ">= 0", blockCacheSizeBytes);
      }
      return new LsmConfig(this);
    }

    private static void positive(String name, long value) {
      if (value <= 0) {
        throw invalid(name, "> 0", value);
      }
    }

    private static IllegalArgumentException invalid(String name, String rule, Object value) {
      return new IllegalArgumentException(
          "invalid LSM config: " + name + " must be " + rule + ", was " + value);
    }
  }
}
