package io.frsm.bench.quick;

/**
 * Latencies in nanoseconds, bucketed log-linearly: 16 buckets per power of two, so any percentile
 * is within about 6% of the true value. Not thread-safe: one per thread, {@link #add}ed together at
 * the end.
 */
public final class LatencyHistogram {
  private static final int SUB_BUCKET_BITS = 4;
  private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
  private static final int BUCKETS = (64 - SUB_BUCKET_BITS + 1) * SUB_BUCKETS;

  private final long[] counts = new long[BUCKETS];
  private long total;

  public void record(long nanos) {
    counts[bucketOf(Math.max(0, nanos))]++;
    total++;
  }

  public void add(LatencyHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    total += other.total;
  }

  public long count() {
    return total;
  }

  /**
   * The upper bound of the bucket holding the {@code quantile} (in [0, 1]) of the recorded values,
   * in nanoseconds; 0 if nothing was recorded.
   */
  public long percentileNanos(double quantile) {
    if (quantile < 0 || quantile > 1) {
      throw new IllegalArgumentException("quantile must be in [0, 1], was " + quantile);
    }
    if (total == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(quantile * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return upperBound(i);
      }
    }
    throw new AssertionError("rank beyond the total count");
  }

  /** Values below 16 get a bucket each; above, bucket = (power of two, top 4 bits below it). */
  static int bucketOf(long v) {
    if (v < SUB_BUCKETS) {
      return (int) v;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BUCKET_BITS
    int shift = exponent - SUB_BUCKET_BITS;
    int sub = (int) (v >>> shift) & (SUB_BUCKETS - 1);
    return (shift + 1) * SUB_BUCKETS + sub;
  }

  /** The largest value that falls in bucket {@code i}. */
  static long upperBound(int i) {
    if (i < SUB_BUCKETS) {
      return i;
    }
    int shift = i / SUB_BUCKETS - 1;
    long sub = i % SUB_BUCKETS;
    long lowest = (SUB_BUCKETS + sub) << shift;
    return lowest + (1L << shift) - 1;
  }
}
