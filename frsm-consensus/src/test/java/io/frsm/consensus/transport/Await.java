package io.frsm.consensus.transport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline (no sleeps as synchronization). */
final class Await {
  private Await() {}

  static void until(BooleanSupplier condition, Duration deadline, String what) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out after " + deadline + " waiting for " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
