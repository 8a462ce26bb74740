package io.frsm.consensus.core;

import io.frsm.lsm.cell.Key;
import java.util.List;

/**
 * The lease settings of DESIGN.md "Lease invariant": the ranges that have a term and a lease, the
 * lease length {@code L} and the monotonic clock drift bound {@code ρ}.
 *
 * <p>Ranges: {@code rangeSplitTokens} cuts the token ring (signed 64-bit order) into {@code splits
 * + 1} ranges; range {@code i} holds the tokens in {@code [split[i-1], split[i])}, the first
 * starting at {@link Long#MIN_VALUE} and the last ending at {@link Long#MAX_VALUE} inclusive. No
 * splits: one range, all keys.
 *
 * @param enabled when false every node coordinates every key, no term is checked and reads are
 *     never leader-only (the behaviour before leases).
 * @param leaseNanos {@code L}: a renewal sent at monotonic time {@code s} gives a lease until
 *     {@code s + L·(1−ρ)}; a successor waits {@code L·(1+ρ)} after its term bump.
 * @param driftPartsPerMillion {@code ρ} in parts per million (1000 = 10⁻³): every node's monotonic
 *     clock runs at a rate within {@code [1−ρ, 1+ρ]} of real time.
 * @param rangeSplitTokens strictly increasing tokens where one range ends and the next begins.
 */
public record LeaseConfig(
    boolean enabled, long leaseNanos, long driftPartsPerMillion, List<Long> rangeSplitTokens) {

  public LeaseConfig {
    rangeSplitTokens = List.copyOf(rangeSplitTokens);
    if (leaseNanos <= 0 || driftPartsPerMillion < 0 || driftPartsPerMillion >= 1_000_000) {
      throw new IllegalArgumentException(
          "lease length must be > 0 and drift in [0, 10^6) ppm: "
              + leaseNanos
              + ", "
              + driftPartsPerMillion);
    }
    for (int i = 1; i < rangeSplitTokens.size(); i++) {
      if (rangeSplitTokens.get(i - 1) >= rangeSplitTokens.get(i)) {
        throw new IllegalArgumentException("split tokens must increase: " + rangeSplitTokens);
      }
    }
  }

  /** Leases off: the core behaves as before this feature. */
  public static LeaseConfig disabled() {
    return new LeaseConfig(false, 2_000_000_000L, 1_000, List.of());
  }

  /** Leases on with DESIGN.md's defaults, L = 2 s and ρ = 10⁻³, over the given splits. */
  public static LeaseConfig defaults(List<Long> rangeSplitTokens) {
    return new LeaseConfig(true, 2_000_000_000L, 1_000, rangeSplitTokens);
  }

  public int rangeCount() {
    return rangeSplitTokens.size() + 1;
  }

  /** The range holding {@code key}'s token. */
  public int rangeOf(Key key) {
    long token = key.token();
    int low = 0;
    int high = rangeSplitTokens.size();
    // The number of split tokens <= token is the range index.
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (rangeSplitTokens.get(mid) <= token) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
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
