package io.frsm.server.node;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Whether this node takes the writes it would coordinate now, and why not: its disk space is low
 * ({@link DiskSpaceGuard}), or its storage engine holds writes back because flushes are behind (the
 * disk does not keep up: {@code lsm.maxFrozenMemtables} memtables wait for their flush). Both close
 * the gate the same way — mutations refused before they run ("not executed", safe to retry) and the
 * acceptor silent ({@link AcceptorSilence}) — and both open it by themselves.
 *
 * <p>Why the flush backlog closes it too: the engine makes a write that finds the flush queue full
 * wait rather than fail (a failed persist stops the node), so something must stop the inflow, or
 * waiting writes would pile up in memory for as long as the disk lags. With the gate closed, only
 * what was already on its way waits. Thread-safe (read per operation and per peer message).
 */
final class WriteGate {
  private final int nodeId;
  private final DiskSpaceGuard space;
  private final BooleanSupplier flushesBehind;
  private final IntSupplier pendingFlushes;
  private final LongAdder refusedForFlushes = new LongAdder();

  /**
   * @param flushesBehind whether the engine holds writes back now (cheap, any thread)
   * @param pendingFlushes memtables waiting for their flush, for the refusal's message
   */
  WriteGate(
      int nodeId, DiskSpaceGuard space, BooleanSupplier flushesBehind, IntSupplier pendingFlushes) {
    this.nodeId = nodeId;
    this.space = space;
    this.flushesBehind = flushesBehind;
    this.pendingFlushes = pendingFlushes;
  }

  /** Whether writes are refused now (the acceptor's silence reads this per message). */
  boolean closed() {
    return space.low() || flushesBehind.getAsBoolean();
  }

  /**
   * The reason to answer a mutation with now (and counts it), or null when the mutation may run.
   */
  String refusal() {
    String lowSpace = space.refusal();
    if (lowSpace != null) {
      return lowSpace;
    }
    if (!flushesBehind.getAsBoolean()) {
      return null;
    }
    refusedForFlushes.increment();
    return "node "
        + nodeId
        + " refuses writes: its disk does not keep up ("
        + pendingFlushes.getAsInt()
        + " memtables wait for their flush, lsm.maxFrozenMemtables); it takes writes again by"
        + " itself once the flushes catch up";
  }

  /** Mutations refused because flushes were behind, so far. */
  long refusedForFlushes() {
    return refusedForFlushes.sum();
  }

  DiskSpaceGuard space() {
    return space;
  }
}
