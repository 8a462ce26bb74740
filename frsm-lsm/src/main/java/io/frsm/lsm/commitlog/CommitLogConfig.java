package io.frsm.lsm.commitlog;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of the striped commit log. Immutable; built and validated by {@link Builder}. Defaults
 * follow the paper's Table 3 ({@code commitlog_rotation_threshold} 64 MB, {@code
 * max_commit_log_size_on_disk} 1 GB).
 */
public final class CommitLogConfig {
  public static final long DEFAULT_SEGMENT_SIZE_BYTES = 64L << 20;
  public static final long DEFAULT_MAX_TOTAL_SIZE_BYTES = 1L << 30;
  public static final int DEFAULT_MAX_BATCH_BYTES = 1 << 20;

  /** Below this a segment would hold a handful of records and rotation would dominate. */
  static final long MIN_SEGMENT_SIZE_BYTES = 1024;

  /** {@link GroupCommitWindow#AUTO}: in proportion to the stripe's own sync time. */
  public static final GroupCommitWindow DEFAULT_GROUP_COMMIT_WINDOW = GroupCommitWindow.AUTO;

  /** On by default: see {@link #preallocateSegments()}. */
  public static final boolean DEFAULT_PREALLOCATE_SEGMENTS = true;

  static final int MIN_BATCH_BYTES = 1024;
  static final int MAX_BATCH_BYTES = 256 << 20;

  private final List<Path> stripeDirectories;
  private final long segmentSizeBytes;
  private final long maxTotalSizeBytes;
  private final int maxBatchBytes;
  private final boolean skipCorruptSegmentTail;
  private final java.util.function.Consumer<io.frsm.lsm.CorruptionException> damagedSegmentTail;
  private final GroupCommitWindow groupCommitWindow;
  private final boolean preallocateSegments;

  private CommitLogConfig(Builder b) {
    this.stripeDirectories = b.stripeDirectories;
    this.segmentSizeBytes = b.segmentSizeBytes;
    this.maxTotalSizeBytes = b.maxTotalSizeBytes;
    this.maxBatchBytes = b.maxBatchBytes;
    this.skipCorruptSegmentTail = b.skipCorruptSegmentTail;
    this.damagedSegmentTail = b.damagedSegmentTail;
    this.groupCommitWindow = b.groupCommitWindow;
    this.preallocateSegments = b.preallocateSegments;
  }

  /**
   * One directory per stripe, ideally one per device. The order matters: stripe {@code i} lives in
   * directory {@code i}, and a key always goes to stripe {@code floorMod(token, size)}.
   */
  public static Builder builder(List<Path> stripeDirectories) {
    return new Builder(stripeDirectories);
  }

  public List<Path> stripeDirectories() {
    return stripeDirectories;
  }

  /** A segment is closed and a new one started once the next record would pass this size. */
  public long segmentSizeBytes() {
    return segmentSizeBytes;
  }

  /** {@link CommitLog#overSizeLimit()} reports when all live segments together exceed this. */
  public long maxTotalSizeBytes() {
    return maxTotalSizeBytes;
  }

  /**
   * The most bytes one group commit writes before its sync; records queued beyond it go into the
   * next batch. A single record larger than this is written alone.
   */
  public int maxBatchBytes() {
    return maxBatchBytes;
  }

  /**
   * What replay does with a damaged record that has intact records after it. False (the default):
   * {@link CommitLog#open} fails with a {@link io.frsm.lsm.CorruptionException}, because skipping
   * would silently drop acknowledged writes. True: log an ERROR naming file and offset and skip the
   * rest of that segment — an operator's explicit choice after inspecting the damage.
   */
  public boolean skipCorruptSegmentTail() {
    return skipCorruptSegmentTail;
  }

  /**
   * Told of damage inside the durable part of a segment (acknowledged records follow it), which
   * replay then skips to the segment's end instead of failing: the caller takes on fencing the
   * replica (the LSM engine quarantines every token; docs/PROTOCOL.md "Corrupt storage"). Null (the
   * default): {@link #skipCorruptSegmentTail()} decides.
   */
  public java.util.function.Consumer<io.frsm.lsm.CorruptionException> damagedSegmentTail() {
    return damagedSegmentTail;
  }

  /**
   * How long a stripe's writer waits for more records before a group commit that already holds two
   * or more: by default ({@link GroupCommitWindow#AUTO}) twice the stripe's recent sync time, at
   * most 1 ms; or a fixed time; or never. Two records queued together are the sign that writers are
   * concurrent, so waiting gathers more of them into the same sync: fewer syncs per record, at the
   * price of up to the window's length per write. A lone record never waits, so a lightly loaded
   * stripe keeps its latency, and a window opens only while recent ones gathered records.
   */
  public GroupCommitWindow groupCommitWindow() {
    return groupCommitWindow;
  }

  /**
   * Whether new segments are written with zeros to their full size before records go in (true, the
   * default), in the background ({@link SegmentPreallocator}). A group commit's sync then persists
   * data only instead of data, a new size and new blocks (measured: {@link SegmentPreallocator}).
   * The price is writing every segment twice (zeros, then records). Turn it off on copy-on-write
   * file systems (btrfs, ZFS), where an overwrite allocates new blocks anyway — as PostgreSQL
   * advises for its {@code wal_init_zero}, which is on by default too.
   */
  public boolean preallocateSegments() {
    return preallocateSegments;
  }

  @Override
  public String toString() {
    return "CommitLogConfig{stripeDirectories="
        + stripeDirectories
        + ", segmentSizeBytes="
        + segmentSizeBytes
        + ", maxTotalSizeBytes="
        + maxTotalSizeBytes
        + ", maxBatchBytes="
        + maxBatchBytes
        + ", skipCorruptSegmentTail="
        + skipCorruptSegmentTail
        + ", groupCommitWindow="
        + groupCommitWindow
        + ", preallocateSegments="
        + preallocateSegments
        + "}";
  }

  /** Validates every setting in {@link #build()}, so a bad value fails where it is configured. */
  public static final class Builder {
    private final List<Path> stripeDirectories;
    private long segmentSizeBytes = DEFAULT_SEGMENT_SIZE_BYTES;
    private long maxTotalSizeBytes = DEFAULT_MAX_TOTAL_SIZE_BYTES;
    private int maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
    private boolean skipCorruptSegmentTail;
    private java.util.function.Consumer<io.frsm.lsm.CorruptionException> damagedSegmentTail;
    private GroupCommitWindow groupCommitWindow = DEFAULT_GROUP_COMMIT_WINDOW;
    private boolean preallocateSegments = DEFAULT_PREALLOCATE_SEGMENTS;

    private Builder(List<Path> stripeDirectories) {
      Objects.requireNonNull(stripeDirectories, "stripeDirectories");
      this.stripeDirectories = List.copyOf(stripeDirectories);
    }

    public Builder segmentSizeBytes(long segmentSizeBytes) {
      this.segmentSizeBytes = segmentSizeBytes;
      return this;
    }

    public Builder maxTotalSizeBytes(long maxTotalSizeBytes) {
      this.maxTotalSizeBytes = maxTotalSizeBytes;
      return this;
    }

    public Builder maxBatchBytes(int maxBatchBytes) {
      this.maxBatchBytes = maxBatchBytes;
      return this;
    }

    public Builder skipCorruptSegmentTail(boolean skipCorruptSegmentTail) {
      this.skipCorruptSegmentTail = skipCorruptSegmentTail;
      return this;
    }

    /** See {@link CommitLogConfig#damagedSegmentTail()}. */
    public Builder damagedSegmentTail(
        java.util.function.Consumer<io.frsm.lsm.CorruptionException> listener) {
      this.damagedSegmentTail = listener;
      return this;
    }

    /** See {@link CommitLogConfig#groupCommitWindow()}; default {@link GroupCommitWindow#AUTO}. */
    public Builder groupCommitWindow(GroupCommitWindow groupCommitWindow) {
      this.groupCommitWindow = Objects.requireNonNull(groupCommitWindow, "groupCommitWindow");
      return this;
    }

    /**
     * A fixed window, in [0, 100 ms] (0: off); {@link GroupCommitWindow#fixed}. Throws {@link
     * IllegalArgumentException} outside that range.
     */
    public Builder groupCommitWindow(Duration fixedWindow) {
      return groupCommitWindow(GroupCommitWindow.fixed(fixedWindow));
    }

    /** See {@link CommitLogConfig#preallocateSegments()}; default true. */
    public Builder preallocateSegments(boolean preallocateSegments) {
      this.preallocateSegments = preallocateSegments;
      return this;
    }

    public CommitLogConfig build() {
      if (stripeDirectories.isEmpty()) {
        throw new IllegalArgumentException("the commit log needs at least one stripe directory");
      }
      Set<Path> distinct = new HashSet<>();
      for (Path dir : stripeDirectories) {
        if (!distinct.add(dir.toAbsolutePath().normalize())) {
          throw new IllegalArgumentException(
              "stripe directory listed twice (each stripe needs its own): " + dir);
        }
      }
      if (segmentSizeBytes < MIN_SEGMENT_SIZE_BYTES) {
        throw new IllegalArgumentException(
            "segmentSizeBytes must be >= " + MIN_SEGMENT_SIZE_BYTES + ", was " + segmentSizeBytes);
      }
      if (maxTotalSizeBytes < segmentSizeBytes) {
        throw new IllegalArgumentException(
            "maxTotalSizeBytes ("
                + maxTotalSizeBytes
                + ") must be >= segmentSizeBytes ("
                + segmentSizeBytes
                + ")");
      }
      if (maxBatchBytes < MIN_BATCH_BYTES || maxBatchBytes > MAX_BATCH_BYTES) {
        throw new IllegalArgumentException(
            "maxBatchBytes must be in ["
                + MIN_BATCH_BYTES
                + ", "
                + MAX_BATCH_BYTES
                + "], was "
                + maxBatchBytes);
      }
      return new CommitLogConfig(this);
    }
  }
}
