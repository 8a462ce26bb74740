package io.frsm.bench.crsm;

import io.frsm.cell.Ballot;
import java.util.List;
import java.util.Objects;

/**
 * Messages between the replicas of one shard (Multi-Paxos). Slots are numbered from 0; {@code -1}
 * means "none yet". Batches are immutable lists; an empty batch is a no-op.
 */
public sealed interface CrsmMessage {

  Ballot ballot();

  /** Phase 1a for every slot from {@code fromSlot} on. */
  record Prepare(Ballot ballot, long fromSlot) implements CrsmMessage {}

  /** Phase 1b: what the sender accepted, or knows chosen, at slots {@code >= fromSlot}. */
  record Promise(Ballot ballot, List<SlotValue> entries) implements CrsmMessage {
    public Promise {
      entries = List.copyOf(entries);
    }
  }

  /**
   * Phase 2a for one slot, carrying the leader's commit point ({@code chosenThrough}: every slot up
   * to it is chosen) and the slot every replica has executed ({@code trimThrough}).
   */
  record Accept(
      Ballot ballot, long slot, List<ClientCommand> batch, long chosenThrough, long trimThrough)
      implements CrsmMessage {
    public Accept {
      Objects.requireNonNull(batch);
    }
  }

  /** Phase 2b: the sender durably accepted {@code slot} at {@code ballot}. */
  record Accepted(Ballot ballot, long slot, long executedThrough) implements CrsmMessage {}

  /** The sender promised {@code promised}, above the {@code ballot} it was asked for. */
  record Reject(Ballot ballot, Ballot promised) implements CrsmMessage {}

  /** The leader is alive; carries its commit and trim points. */
  record Heartbeat(Ballot ballot, long chosenThrough, long trimThrough) implements CrsmMessage {}

  /** Answer to a heartbeat: how far the sender executed (the leader trims below every replica). */
  record HeartbeatAck(Ballot ballot, long executedThrough) implements CrsmMessage {}

  /** A replica asks the leader for chosen slots it lacks, from {@code fromSlot} on. */
  record Fetch(Ballot ballot, long fromSlot) implements CrsmMessage {}

  /** The chosen value of {@code slot}. Not persisted by the receiver: chosen is re-learnable. */
  record Learn(Ballot ballot, long slot, List<ClientCommand> batch) implements CrsmMessage {
    public Learn {
      Objects.requireNonNull(batch);
    }
  }

  /** One slot in a {@link Promise}: the accepted (or, if {@code chosen}, the chosen) value. */
  record SlotValue(long slot, Ballot ballot, List<ClientCommand> batch, boolean chosen) {
    public SlotValue {
      Objects.requireNonNull(ballot);
      Objects.requireNonNull(batch);
    }
  }
}
