package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, polling with short parks (never a fixed sleep). */
final class Await {
  private Await() {}

  static void until(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out after " + timeout + " waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
