package io.frsm.server.workload;

import org.HdrHistogram.Histogram;

/** One operation type's count and latency histogram (nanoseconds). Not thread-safe. */
final class OperationStats {
  /** One hour in nanoseconds, 3 significant digits. */
  static final long HIGHEST_TRACKABLE_NANOS = 3_600_000_000_000L;

  final Histogram latencyNanos = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);

  void record(long nanos) {
    latencyNanos.recordValue(Math.min(Math.max(nanos, 1), HIGHEST_TRACKABLE_NANOS));
  }

  void add(OperationStats other) {
    latencyNanos.add(other.latencyNanos);
  }

  long count() {
    return latencyNanos.getTotalCount();
  }
}
