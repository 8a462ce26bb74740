package io.frsm.consensus.core;

import java.util.Objects;

/** What the driver feeds into {@link NodeCore#step}. */
public sealed interface Input {

  /**
   * A client operation. {@code invokedAtMicros} is τ, the caller's wall clock when it issued the
   * operation: no prepare or accept for it starts after {@code τ + T}.
   */
  record ClientRequest(long requestId, Operation operation, long invokedAtMicros) implements Input {
    public ClientRequest {
      Objects.requireNonNull(operation);
    }
  }

  /** A peer message, possibly from this node itself. */
  record Receive(int from, Message message) implements Input {
    public Receive {
      Objects.requireNonNull(message);
    }
  }

  /** Time passed: timeouts, hedging, back-off and the bounded delay are checked. */
  record Tick() implements Input {}

  /** The persist {@code persistId} is durable and visible to {@link CellStore#get}. */
  record PersistDone(long persistId) implements Input {}

  /**
   * From the coordination service: this node won range {@code range}'s latch and bumped its term to
   * {@code term}, revoking the predecessor's lease generation in the same {@code multi}. The node
   * accepts nothing in the range until {@code L·(1+ρ)} after this input, by its monotonic clock,
   * then persists the term at {@code q} replicas.
   */
  record TermGranted(int range, long term) implements Input {
    public TermGranted {
      if (range < 0 || term < 1) {
        throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
      }
    }
  }

  /**
   * From the coordination service: a renewal {@code multi(check(lease generation))} for {@code
   * term}, sent at this node's monotonic time {@code requestSentMonoNanos} (same incarnation),
   * succeeded. The lease runs until {@code requestSentMonoNanos + L·(1−ρ)}.
   */
  record LeaseRenewed(int range, long term, long requestSentMonoNanos) implements Input {
    public LeaseRenewed {
      if (range < 0 || term < 1) {
        throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
      }
    }
  }

  /** From the coordination service: a failed check, SUSPENDED or LOST. The lease ends now. */
  record LeaseLost(int range) implements Input {}
}
