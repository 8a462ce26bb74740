package io.frsm.server.zk;

import java.time.Duration;

/**
 * What a node's hand-backs may drain (docs/PROTOCOL.md "Hand-off instead of a scan", "Declining"):
 * beyond any of these the hand-off is declined and the range released plainly, so the successor
 * scans.
 *
 * @param maxKeys keys written in the term a single drain takes ({@code consensus.handOffMaxKeys})
 * @param drainBudgetKeys keys all of the node's drains together settle at once ({@code
 *     consensus.handOffDrainBudgetKeys}); at least {@code maxKeys}, or a single full drain could
 *     never start
 * @param maxAbsence the longest interim term a hand-back to a returning node drains ({@code
 *     consensus.handOffMaxAbsence}): after a longer absence the returning node scans
 * @param stopWait how long a graceful stop waits for the hand-offs of the ranges it holds before it
 *     releases the rest plainly ({@code consensus.handOffStopWait}); zero: a stop hands nothing off
 */
public record HandOffLimits(
    int maxKeys, int drainBudgetKeys, Duration maxAbsence, Duration stopWait) {
  /** 512 keys: at the slowest settle rate measured, 1,000 keys/s, about 0.5 s = L/4 of 2 s. */
  public static final int DEFAULT_DRAIN_BUDGET_KEYS = 512;

  public static final Duration DEFAULT_MAX_ABSENCE = Duration.ofMinutes(30);

  /**
   * Two leases of the default 2 s: one for a drain to ship, one for its acknowledgement, the two
   * bounds a hand-back gives itself ({@link RangeHandBack}).
   */
  public static final Duration DEFAULT_STOP_WAIT = Duration.ofSeconds(4);

  public static final HandOffLimits DEFAULT =
      new HandOffLimits(256, DEFAULT_DRAIN_BUDGET_KEYS, DEFAULT_MAX_ABSENCE, DEFAULT_STOP_WAIT);

  public HandOffLimits {
    if (maxKeys < 1
        || drainBudgetKeys < maxKeys
        || maxAbsence.isNegative()
        || stopWait.isNegative()) {
      throw new IllegalArgumentException(
          "hand-off limits: maxKeys >= 1, drainBudgetKeys >= maxKeys, maxAbsence >= 0,"
              + " stopWait >= 0: "
              + maxKeys
              + ", "
              + drainBudgetKeys
              + ", "
              + maxAbsence
              + ", "
              + stopWait);
    }
  }

  /** As the canonical constructor with the default stop wait. */
  public HandOffLimits(int maxKeys, int drainBudgetKeys, Duration maxAbsence) {
    this(maxKeys, drainBudgetKeys, maxAbsence, DEFAULT_STOP_WAIT);
  }
}
