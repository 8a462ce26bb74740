package io.frsm.server.zk;

import io.frsm.consensus.core.HandOffShipment;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

/**
 * What a hand-back needs of the node (docs/PROTOCOL.md "Hand-off instead of a scan"): whether
 * hand-offs are on, their limits, the core's drain and the delivery of its shipment. The part of
 * {@link RangeLeadership.Sink} that only {@link RangeHandBack} uses; without hand-offs every
 * default holds and every hand-over is a plain release.
 */
public interface HandOffSink {
  /**
   * Hand-off instead of a scan: whether hand-backs drain and ship (the core's {@code
   * CoreConfig.Modes.handOff}); false: every hand-over is a plain release.
   */
  default boolean handsOff() {
    return false;
  }

  /** What hand-backs may drain ({@link HandOffLimits}; read once, at start). */
  default HandOffLimits handOffLimits() {
    return HandOffLimits.DEFAULT;
  }

  /**
   * Starts the drain of {@code term} (Input.HandOff, capped at {@code maxKeys} written keys);
   * completes with the core's shipment once it is done, null if the core stopped, exceptionally
   * with {@link HandOffDeclined} if the core declined (too many keys written). {@code begun} is
   * told, on any thread and before the shipment, how many keys the drain began with, if it began.
   * May never complete: the agent bounds the wait.
   */
  default CompletableFuture<HandOffShipment> handOff(
      int range, long term, int maxKeys, IntConsumer begun) {
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Delivers {@code shipment} to node {@code successor}: completes true once the successor's core
   * took it, false if not (refused, unreachable, no answer in time). Never exceptionally.
   */
  default CompletableFuture<Boolean> ship(int successor, HandOffShipment shipment) {
    return CompletableFuture.completedFuture(false);
  }
}
