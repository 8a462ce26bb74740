package io.frsm.bench.crsm;

import java.util.Objects;

/** What a driver feeds to {@link CrsmShardCore#step}. */
public sealed interface CrsmInput {

  /** A client command arriving at this replica. */
  record ClientRequest(long requestId, Command command) implements CrsmInput {
    public ClientRequest {
      Objects.requireNonNull(command);
    }
  }

  /** A message from replica {@code from} (possibly this one). */
  record Receive(int from, CrsmMessage message) implements CrsmInput {
    public Receive {
      Objects.requireNonNull(message);
    }
  }

  /** The {@link CrsmEffect.Persist} with this id is durable. */
  record PersistDone(long persistId) implements CrsmInput {}

  /** One tick of time passed. */
  record Tick() implements CrsmInput {}

  /**
   * The driver finished a turn of its event loop: the leader proposes what it queued (batches form
   * from everything that arrived in the turn).
   */
  record Flush() implements CrsmInput {}

  /** Start phase 1 now (initial leader placement, or a test's takeover). */
  record Campaign() implements CrsmInput {}
}
