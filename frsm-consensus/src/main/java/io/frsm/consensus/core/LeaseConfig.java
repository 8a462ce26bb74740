package io.frsm.consensus.core;

import java.time.Duration;
import java.util.Objects;

/**
 * The lease settings of docs/DESIGN.md "Lease invariant": whether ranges have terms and leases, the
 * lease length {@code L} and the monotonic clock drift bound {@code ρ}. The ranges themselves are
 * the {@link Placement}'s.
 *
 * @param enabled when false every node coordinates every key, no term is checked and reads are
 *     never leader-only (the behaviour before leases).
 * @param lease {@code L}: a renewal sent at monotonic time {@code s} gives a lease until {@code s +
 *     L·(1−ρ)}; a successor waits {@code L·(1+ρ)} after its term bump. Positive, counted in
 *     nanoseconds.
 * @param driftPartsPerMillion {@code ρ} in parts per million (1000 = 10⁻³): every node's monotonic
 *     clock runs at a rate within {@code [1−ρ, 1+ρ]} of real time. In {@code [0, 10⁶)}.
 */
public record LeaseConfig(boolean enabled, Duration lease, long driftPartsPerMillion) {

  /**
   * docs/DESIGN.md's lease length, which the core's tests and the simulator script against. A node
   * runs with its {@code consensus.lease}, 1.5 s by default (docs/PROTOCOL.md "Where the code
   * differs", item 10).
   */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(2);

  /** docs/DESIGN.md's drift bound, 10⁻³. */
  public static final long DEFAULT_DRIFT_PARTS_PER_MILLION = 1_000;

  public LeaseConfig {
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative()
        || lease.isZero()
        || lease.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0
        || driftPartsPerMillion < 0
        || driftPartsPerMillion >= 1_000_000) {
      throw new IllegalArgumentException(
          "lease length must be in (0, 2^63 ns] and drift in [0, 10^6) ppm: "
              + lease
              + ", "
              + driftPartsPerMillion);
    }
  }

  /** Leases off: the core behaves as before this feature. */
  public static LeaseConfig disabled() {
    return new LeaseConfig(false, DEFAULT_LEASE, DEFAULT_DRIFT_PARTS_PER_MILLION);
  }

  /** Leases on with docs/DESIGN.md's defaults, L = 2 s and ρ = 10⁻³. */
  public static LeaseConfig defaults() {
    return new LeaseConfig(true, DEFAULT_LEASE, DEFAULT_DRIFT_PARTS_PER_MILLION);
  }

  /**
   * {@code L·(1−ρ)} in nanoseconds, rounded down: how long after sending a successful renewal the
   * holder may still act as leader, by its own clock.
   */
  public long leaseAfterRenewalNanos() {
    long leaseNanos = lease.toNanos();
    return leaseNanos - ceilPpm(leaseNanos);
  }

  /**
   * {@code L·(1+ρ)} in nanoseconds, rounded up: how long a successor waits, by its own clock, after
   * its term bump before its first accept.
   */
  public long successorWaitNanos() {
    long leaseNanos = lease.toNanos();
    return Math.addExact(leaseNanos, ceilPpm(leaseNanos));
  }

  private long ceilPpm(long nanos) {
    return Math.addExact(Math.multiplyExact(nanos, driftPartsPerMillion), 999_999) / 1_000_000;
  }
}
