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
}
