package io.frsm.consensus.core;

/**
 * How the coordinator served a get that returned a value or absence. The driver gets it with the
 * reply ({@link Effect.Reply#readMode()}) so it can time reads by how they were served; the core's
 * counters ({@link CoreStats}) classify the same way, so per-mode latencies and counts agree.
 */
public enum ReadMode {
  /** From the local cell under the range lease, after the leader scanned its range: 0 messages. */
  LEADER_ONLY,
  /** A quorum read that found the value settled and wrote nothing: 1 RTT. */
  QUORUM,
  /** A quorum read that found an unsettled value and had to prepare and write it: 3 RTT. */
  MUTATING_QUORUM;

  /**
   * The mode of an operation that ended with {@code outcome}, or null if it is not a get answered
   * with a value or absence. {@code prepared}: it ran a prepare; {@code leaderOnly}: it was served
   * from the local cell under the lease.
   */
  static ReadMode of(Operation operation, Outcome outcome, boolean prepared, boolean leaderOnly) {
    if (!(operation instanceof Operation.Get) || !(outcome instanceof Outcome.ReadResult)) {
      return null;
    }
    if (leaderOnly) {
      return LEADER_ONLY;
    }
    return prepared ? MUTATING_QUORUM : QUORUM;
  }
}
