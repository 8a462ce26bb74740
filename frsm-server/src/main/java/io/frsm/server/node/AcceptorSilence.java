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
 *
 * <p>One exception: a node's commit <em>to itself</em> always passes. It is how a value this node
 * learned chosen (its own round, its scan's or its quorum read's answer) reaches its own cell, and
 * the core waits for exactly that (the key is "catching up": not served leader-only, and a range
 * with such a key neither ships a hand-off nor reaches its entry base). Nothing resends it, so a
 * dropped one left the key catching up for good: found by the 1M-key hand-off benchmark, where the
 * returning node's scan filled memtables faster than they flushed, the gate closed for 44 ms, and
 * the range never reached its entry base. Letting it through costs little: it is a hint (an
 * unlogged write into the memtable, no promise, no acknowledgement), at most one per key this node
 * learned chosen, and while flushes are behind it waits in the engine's stall like any write
 * already on its way. Thread-safe (the count is a {@link LongAdder}; {@code low} must be).
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

  /**
   * Whether {@code message}, sent by this node itself if {@code own}, is dropped now (then it is
   * counted).
   */
  boolean drops(Message message, boolean own) {
    if (!writes(message) || (own && message instanceof Message.Commit) || !low.getAsBoolean()) {
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
