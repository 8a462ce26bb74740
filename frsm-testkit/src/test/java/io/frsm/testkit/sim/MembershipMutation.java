package io.frsm.testkit.sim;

/**
 * Deliberate bugs of the membership orchestrator, for teeth tests only: each breaks a rule of
 * {@code RingTransition} (docs/PROTOCOL.md "Membership changes") that the core cannot enforce by
 * itself, because the orchestrator, not the core, decides when the next version is published and
 * which disk a node id stands for. The core's own bugs are {@code Sabotage}s.
 */
enum MembershipMutation {
  /** Rule 4b broken: the next version is published without settling the changed ranges. */
  SKIP_SETTLE,
  /**
   * Rule 4a broken: the settles are asked, and the next version published, without waiting for a
   * quorum of the new voters to report the version installed.
   */
  SKIP_INSTALL_WAIT,
  /**
   * Rule 3 broken: instead of replacing a dead node by a new id, its disk is wiped and it comes
   * back at once under its old id, as a voter, having forgotten every promise it made.
   */
  WIPED_REJOINS_UNDER_OLD_ID
}
