package io.frsm.server.node;

import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.ReadMode;

/**
 * What the core's loop answers a submitted operation: its outcome, and for a get that returned a
 * value or absence how it was served ({@code readMode}; null otherwise, also for operations the
 * loop failed without the core's reply). The mode exists for the node's meters only: clients see
 * the outcome.
 */
record CoreAnswer(Outcome outcome, ReadMode readMode) {
  static CoreAnswer of(Outcome outcome) {
    return new CoreAnswer(outcome, null);
  }
}
