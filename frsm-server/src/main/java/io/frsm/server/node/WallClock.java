package io.frsm.server.node;

import java.time.Duration;
import java.time.Instant;

/**
 * The node's wall clock in microseconds since the epoch: the τ it gives operations and the wall
 * time its cores step with (docs/PROTOCOL.md). One place, so that the multi-process fault suite can
 * skew a node process's clock (within or beyond ε) without touching the machine's clock.
 *
 * <p>The offset is zero unless a test in this package sets it ({@link #offsetForTests}); no
 * configuration key, variable or property reaches it, so a production node reads the system clock
 * as it is. It is per JVM: every node of one process shares it, which is why only the node-process
 * fault harness (one node per JVM) uses it.
 */
final class WallClock {
  private static volatile long offsetMicros;

  private WallClock() {}

  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000 + offsetMicros;
  }

  /**
   * Tests only: from now on the clock reads {@code offset} ahead (negative: behind) of the
   * system's.
   */
  static void offsetForTests(Duration offset) {
    offsetMicros = offset.toNanos() / 1_000;
  }
}
