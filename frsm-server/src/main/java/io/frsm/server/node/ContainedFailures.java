package io.frsm.server.node;

import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.RefusedInputException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The failures one core contains instead of stopping the node (docs/OPERATIONS.md "Failure
 * policy"): client operations the core failed on, answered with an error, and peer messages it
 * refused, dropped. Every one is counted; each kind is logged at most once a second, so what one
 * client or peer sends cannot flood the log. Thread-safe.
 */
final class ContainedFailures {
  private final int nodeId;
  private final LongAdder operationErrors = new LongAdder();
  private final LongAdder refusedPeerMessages = new LongAdder();
  private final RateLimitedLog operationErrorLog;
  private final RateLimitedLog refusedPeerMessageLog;

  ContainedFailures(int nodeId, Logger log) {
    this.nodeId = nodeId;
    this.operationErrorLog = new RateLimitedLog(log, Level.ERROR, 1, TimeUnit.SECONDS);
    this.refusedPeerMessageLog = new RateLimitedLog(log, Level.WARNING, 1, TimeUnit.SECONDS);
  }

  /**
   * The core failed on a client operation, which is answered {@code answer}; {@code stack}: log the
   * error's stack (an unexpected failure, not a refusal).
   */
  void operationFailed(Outcome answer, RuntimeException error, boolean stack) {
    operationErrors.increment();
    operationErrorLog.log(
        "node " + nodeId + ": the core failed on a client operation, which was answered " + answer,
        stack ? error : null);
  }

  /** The core refused a message of node {@code from}, which is dropped. */
  void peerMessageRefused(int from, RefusedInputException refused) {
    refusedPeerMessages.increment();
    refusedPeerMessageLog.log(
        "node " + nodeId + " dropped a message of node " + from + ": " + refused.getMessage(),
        null);
  }

  /** Client operations answered with an error because the core failed on them. */
  long operationErrors() {
    return operationErrors.sum();
  }

  /** Peer messages the core refused (a field outside {@code InputBounds}) and that were dropped. */
  long refusedPeerMessages() {
    return refusedPeerMessages.sum();
  }
}
