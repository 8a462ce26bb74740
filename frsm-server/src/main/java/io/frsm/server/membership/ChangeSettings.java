package io.frsm.server.membership;

import java.time.Duration;

/**
 * How this node runs the membership changes it orchestrates and requests (docs/OPERATIONS.md
 * "Membership changes").
 *
 * @param stepTimeout how long one wait (installations, copies, settles) may go without progress
 *     before the run stops; it is resumed by the next run ({@code node.membershipStepTimeout})
 * @param rangesPerNode how many changed ranges per settling node an add or a decommission requested
 *     here promotes in each step; 0: all in one step ({@code node.membershipStepRangesPerNode};
 *     stored with the change, so whoever resumes it plans the same steps). A replace promotes every
 *     range at once whatever this says: its ranges are one live voter short until then
 */
public record ChangeSettings(Duration stepTimeout, int rangesPerNode) {
  public ChangeSettings {
    if (stepTimeout == null || stepTimeout.isNegative() || stepTimeout.isZero()) {
      throw new IllegalArgumentException("the step timeout must be positive, was " + stepTimeout);
    }
    MembershipChange.checkRangesPerNode(rangesPerNode);
  }

  /** {@code stepTimeout} with the default step size, one range per node. */
  public static ChangeSettings of(Duration stepTimeout) {
    return new ChangeSettings(stepTimeout, 1);
  }
}
