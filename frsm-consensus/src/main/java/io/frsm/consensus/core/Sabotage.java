package io.frsm.consensus.core;

/**
 * Deliberate protocol bugs, for tests only: each one breaks a rule the safety argument needs, so a
 * test can show that the simulator's checkers catch it. Production configurations never set any.
 */
public enum Sabotage {
  /** The acceptor accepts a proposal whatever ballot it promised. */
  ACCEPT_WITHOUT_PROMISE_CHECK,
  /** The acceptor replies PROMISE/ACCEPTED as soon as it asks for the persist, not after it. */
  ACK_BEFORE_PERSIST,
  /** Mutating reads and fences answer the newest value without bumping it to {@code t+1}. */
  SKIP_QUENCH
}
