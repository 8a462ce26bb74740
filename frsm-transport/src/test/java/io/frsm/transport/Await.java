package io.frsm.transport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, polling it every 0.1 ms (never a fixed sleep). */
final class Await {
  private Await() {}

  static void until(BooleanSupplier condition, Duration deadline, String what) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out after " + deadline + " waiting for " + what);
      }
      // A short park, not a spin: on a loaded 2-core machine a spinning waiter starves the event
      // loops it waits for.
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
  }
}
