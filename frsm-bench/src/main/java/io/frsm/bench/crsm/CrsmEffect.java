package io.frsm.bench.crsm;

import io.frsm.cell.Ballot;
import java.util.List;
import java.util.Objects;

/**
 * What {@link CrsmShardCore#step} asks its driver to do, in order. A send or reply that depends on
 * a persist is only emitted after its {@link CrsmInput.PersistDone}.
 */
public sealed interface CrsmEffect {

  /** Make {@code record} durable, then feed {@link CrsmInput.PersistDone} with this id. */
  record Persist(long persistId, LogRecord record) implements CrsmEffect {
    public Persist {
      Objects.requireNonNull(record);
    }
  }

  /** Deliver {@code message} to replica {@code to} (possibly this one). May be lost. */
  record Send(int to, CrsmMessage message) implements CrsmEffect {
    public Send {
      Objects.requireNonNull(message);
    }
  }

  /** Answer the client request {@code requestId}. */
  record Reply(long requestId, Result result) implements CrsmEffect {
    public Reply {
      Objects.requireNonNull(result);
    }
  }

  /** This replica executed the chosen {@code batch} of {@code slot} (slots come in order). */
  record Executed(long slot, List<ClientCommand> batch) implements CrsmEffect {}

  /** This replica, as leader, proposed a slot carrying {@code commands} client commands. */
  record Proposed(long slot, int commands) implements CrsmEffect {}

  /**
   * This replica became leader at {@code ballot}, or ({@code leading == false}) stopped leading.
   */
  record LeadershipChanged(boolean leading, Ballot ballot) implements CrsmEffect {}

  /** A durable record of one shard replica's acceptor state. */
  sealed interface LogRecord {}

  /** The replica promised {@code ballot} for every slot. */
  record PromiseRecord(Ballot ballot) implements LogRecord {}

  /** The replica accepted {@code batch} at {@code slot} under {@code ballot}. */
  record AcceptRecord(long slot, Ballot ballot, List<ClientCommand> batch) implements LogRecord {}
}
