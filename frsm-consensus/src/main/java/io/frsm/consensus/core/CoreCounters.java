package io.frsm.consensus.core;

/**
 * The core's running counters: plain fields, bumped on the core's single thread as operations end
 * and rounds are sent; {@link #snapshot()} copies them for the driver to publish.
 */
final class CoreCounters {
  private long gets;
  private long creates;
  private long cases;
  private long deletes;
  private long fences;
  private long casWarm;
  private long casCold;
  private long readsLeaderOnly;
  private long readsQuorum;
  private long readsMutatingQuorum;
  private long mismatches;
  private long keyExists;
  private long unknownOutcomes;
  private long notExecuted;
  private long preparesSent;
  private long acceptsSent;
  private long mismatchesLeaderOnly;
  private long staleRingRefused;
  private long staleRingReplies;
  private long keysSettledByScan;
  private long keysSettledByPull;
  private long pullSettleNanos;
  private long keysSkippedByScan;

  /** A holder's range scan left a key unsettled after reads that did not answer. */
  void keySkippedByScan() {
    keysSkippedByScan++;
  }

  /** A range scan's read of a key in the scan's own order answered. */
  void keySettledByScan() {
    keysSettledByScan++;
  }

  /** A key pulled forward by an operation was settled, {@code nanos} after the pull. */
  void keySettledByPull(long nanos) {
    keysSettledByPull++;
    pullSettleNanos += nanos;
  }

  /** This node's acceptor refused a request or purge for its outdated ring version. */
  void staleRingRefused() {
    staleRingRefused++;
  }

  /** One of this node's rounds was refused for its ring version ({@link Message.StaleRing}). */
  void staleRingReply() {
    staleRingReplies++;
  }

  void prepareSent() {
    preparesSent++;
  }

  void acceptSent() {
    acceptsSent++;
  }

  /**
   * An operation ended with {@code outcome}. {@code prepared}: it ran a prepare; {@code accepted}:
   * it sent an accept; {@code leaderOnly}: answered from the local cell under the lease (a get, or
   * a CAS or delete that failed as a mismatch); {@code readMode}: how a get that returned a value
   * or absence was served ({@link ReadMode#of}), else null.
   */
  void finished(
      Operation operation,
      Outcome outcome,
      boolean prepared,
      boolean accepted,
      boolean leaderOnly,
      ReadMode readMode) {
    if (operation instanceof Operation.Get) {
      gets++;
      if (readMode == ReadMode.LEADER_ONLY) {
        readsLeaderOnly++;
      } else if (readMode == ReadMode.MUTATING_QUORUM) {
        readsMutatingQuorum++;
      } else if (readMode == ReadMode.QUORUM) {
        readsQuorum++;
      }
    } else if (operation instanceof Operation.Create) {
      creates++;
    } else if (operation instanceof Operation.Cas) {
      cases++;
      if (prepared) {
        casCold++;
      } else if (accepted) {
        casWarm++;
      }
    } else if (operation instanceof Operation.Delete) {
      deletes++;
    } else if (operation instanceof Operation.Fence) {
      fences++;
    }
    if (outcome instanceof Outcome.Mismatch) {
      mismatches++;
      if (leaderOnly) {
        mismatchesLeaderOnly++;
      }
    } else if (outcome instanceof Outcome.Exists) {
      keyExists++;
    } else if (outcome instanceof Outcome.Unknown) {
      unknownOutcomes++;
    } else if (outcome instanceof Outcome.NotExecuted) {
      notExecuted++;
    }
  }

  CoreStats snapshot() {
    return new CoreStats(
        gets,
        creates,
        cases,
        deletes,
        fences,
        casWarm,
        casCold,
        readsLeaderOnly,
        readsQuorum,
        readsMutatingQuorum,
        mismatches,
        keyExists,
        unknownOutcomes,
        notExecuted,
        preparesSent,
        acceptsSent,
        mismatchesLeaderOnly,
        staleRingRefused,
        staleRingReplies,
        keysSettledByScan,
        keysSettledByPull,
        pullSettleNanos,
        keysSkippedByScan);
  }
}
