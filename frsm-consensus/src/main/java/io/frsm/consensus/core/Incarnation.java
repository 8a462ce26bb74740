package io.frsm.consensus.core;

import io.frsm.cell.Ballot;

/**
 * This node's incarnation, {@code (nodeId, boot)}, and the names it gives its rounds and ballots.
 * One per core: every round of every run, term persist, range scan and delete probe takes its
 * {@link RoundId} here, so round ids never repeat within an incarnation and a restarted node (a
 * higher boot) never reuses one of its previous incarnation.
 *
 * <p>Not thread-safe: the core's single thread only.
 */
final class Incarnation {
  private final int nodeId;
  private final int boot;
  private long nextRoundSequence;

  /** The highest ballot round this incarnation made (0: none yet): floors lie above it. */
  private long highestBallotRound;

  Incarnation(int nodeId, int boot) {
    this.nodeId = nodeId;
    this.boot = boot;
  }

  int nodeId() {
    return nodeId;
  }

  int boot() {
    return boot;
  }

  RoundId newRoundId() {
    return new RoundId(nodeId, boot, nextRoundSequence++);
  }

  /** This incarnation's ballot at {@code round}. */
  Ballot ballot(long round) {
    highestBallotRound = Math.max(highestBallotRound, round);
    return new Ballot(round, nodeId, boot);
  }

  /**
   * The highest round of any ballot this incarnation made so far (every ballot it proposes is made
   * here, a warm CAS re-using one made earlier): a term's floor goes above it.
   */
  long highestBallotRound() {
    return highestBallotRound;
  }

  /** Whether {@code ballot} is one of this incarnation's own ballots. */
  boolean issued(Ballot ballot) {
    return ballot.nodeId() == nodeId && ballot.boot() == boot;
  }
}
