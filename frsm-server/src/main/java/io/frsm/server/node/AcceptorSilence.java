package io.frsm.server.node;

import io.frsm.consensus.core.Message;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * While disk space is low ({@link DiskSpaceGuard}) or the storage engine's flushes are behind
 * ({@link WriteGate}), the messages that would make this node's acceptor write are dropped before
 * they reach the core (docs/PROTOCOL.md "Disk space guard"): prepares, accepts, term persists and
 * term-taking key listings (each persists a promise, a value or a term), commits and purges (each
 * merges into the cell). Reads, replies and a settle's listing (which writes nothing) pass, so the
 * node still serves reads and its own rounds still count the other replicas' answers.
 *
 * <p>Why this is safe: to Paxos a dropped message is a lost one, which every rule already
 * tolerates; a silent acceptor never breaks a promise and never acknowledges what it did not
 * persist. What it costs: while one replica of three is silent, every round needs both others.
 * Thread-safe (the count is a {@link LongAdder}; {@code low} must be).
 */
final class AcceptorSilence {
  private final BooleanSupplier low;
  private final LongAdder dropped = new LongAdder();

  /**
   * @param low whether the node's writes are refused now (read per message: cheap and thread-safe)
   */
  AcceptorSilence(BooleanSupplier low) {
    this.low = low;
  }

  /** Never silent: for nodes and tests without a guard. */
  static final AcceptorSilence NEVER = new AcceptorSilence(() -> false);

  /** Whether {@code message} is dropped now (then it is counted). */
  boolean drops(Message message) {
    if (!writes(message) || !low.getAsBoolean()) {
      return false;
    }
    dropped.increment();
    return true;
  }

  /** Messages dropped so far. */
  long dropped() {
    return dropped.sum();
  }

  /** Whether the acceptor may persist on {@code message}. */
  static boolean writes(Message message) {
    return message instanceof Message.Prepare
        || message instanceof Message.Accept
        || message instanceof Message.TermPersist
        || (message instanceof Message.ListKeys listing && !listing.settle())
        || message instanceof Message.Commit
        || message instanceof Message.Purge;
  }
}
