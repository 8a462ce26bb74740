package io.frsm.consensus.core;

/**
 * How fast a core's membership settles start their key reads: at most {@code keysPerSecond} reads a
 * second over all its settling ranges, with a burst of {@link #BURST_NANOS} worth of reads (at
 * least one): by any time {@code t} after the first start, at most {@code burst + t × rate} reads
 * have started. A settle is background work that competes with client operations for the same CPUs
 * and disks (each settled key costs about 16 messages and 6 logged persists, docs/PROTOCOL.md
 * "Pacing a settle"): paced, a join or decommission takes longer and the foreground keeps its
 * share. 0: no pace (every settle runs its full read window at once).
 *
 * <p>A generic cell rate: a read may start while the scheduled start of the next read is at most
 * (burst − 1) intervals ahead of now; each start moves it one interval on. On the core's monotonic
 * clock ({@link Now#monoNanos}), so deterministic under the simulator. Holder scans are never
 * paced: a new holder's range serves in quorum mode until its scan ends.
 */
final class SettlePace {
  /** The burst: 50 ms of reads, so a tick every few milliseconds keeps the pace smooth. */
  static final long BURST_NANOS = 50_000_000L;

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final long intervalNanos;

  /** How far ahead of now the next start may be scheduled: (burst reads − 1) intervals. */
  private final long toleranceNanos;

  private boolean started;
  private long nextStartNanos;

  /**
   * @param keysPerSecond reads a second at most; 0: unpaced
   */
  SettlePace(int keysPerSecond) {
    if (keysPerSecond < 0) {
      throw new IllegalArgumentException("keysPerSecond must be >= 0, was " + keysPerSecond);
    }
    this.intervalNanos = keysPerSecond == 0 ? 0 : Math.max(1, NANOS_PER_SECOND / keysPerSecond);
    long burstReads = intervalNanos == 0 ? 1 : Math.max(1, BURST_NANOS / intervalNanos);
    this.toleranceNanos = (burstReads - 1) * intervalNanos;
  }

  /** Whether one more settle read may start at {@code nowNanos}; if so, it is counted. */
  boolean tryStart(long nowNanos) {
    if (intervalNanos == 0) {
      return true;
    }
    if (!started || nextStartNanos - nowNanos < 0) {
      started = true;
      nextStartNanos = nowNanos; // idle time earns no more than the burst
    }
    if (nextStartNanos - nowNanos > toleranceNanos) {
      return false;
    }
    nextStartNanos += intervalNanos;
    return true;
  }

  boolean paced() {
    return intervalNanos != 0;
  }
}
