package io.frsm.consensus.core;

/**
 * The lease settings of DESIGN.md "Lease invariant": whether ranges have terms and leases, the
 * lease length {@code L} and the monotonic clock drift bound {@code ρ}. The ranges themselves are
 * the {@link Placement}'s.
 *
 * @param enabled when false every node coordinates every key, no term is checked and reads are
 *     never leader-only (the behaviour before leases).
 * @param leaseNanos {@code L}: a renewal sent at monotonic time {@code s} gives a lease until
 *     {@code s + L·(1−ρ)}; a successor waits {@code L·(1+ρ)} after its term bump.
 * @param driftPartsPerMillion {@code ρ} in parts per million (1000 = 10⁻³): every node's monotonic
 *     clock runs at a rate within {@code [1−ρ, 1+ρ]} of real time.
 */
public record LeaseConfig(boolean enabled, long leaseNanos, long driftPartsPerMillion) {

  public LeaseConfig {
    if (leaseNanos <= 0 || driftPartsPerMillion < 0 || driftPartsPerMillion >= 1_000_000) {
      throw new IllegalArgumentException(
          "lease length must be > 0 and drift in [0, 10^6) ppm: "
              + leaseNanos
              + ", "
              + driftPartsPerMillion);
    }
  }

  /** Leases off: the core behaves as before this feature. */
  public static LeaseConfig disabled() {
    return new LeaseConfig(false, 2_000_000_000L, 1_000);
  }

  /** Leases on with DESIGN.md's defaults, L = 2 s and ρ = 10⁻³. */
  public static LeaseConfig defaults() {
    return new LeaseConfig(true, 2_000_000_000L, 1_000);
  }

  /**
   * {@code L·(1−ρ)}, rounded down: how long after sending a successful renewal the holder may still
   * act as leader, by its own clock.
   */
  public long leaseAfterRenewalNanos() {
    return leaseNanos - ceilPpm(leaseNanos);
  }

  /**
   * {@code L·(1+ρ)}, rounded up: how long a successor waits, by its own clock, after its term bump
   * before its first accept.
   */
  public long successorWaitNanos() {
    return Math.addExact(leaseNanos, ceilPpm(leaseNanos));
  }

  private long ceilPpm(long nanos) {
    return Math.addExact(Math.multiplyExact(nanos, driftPartsPerMillion), 999_999) / 1_000_000;
  }
}
