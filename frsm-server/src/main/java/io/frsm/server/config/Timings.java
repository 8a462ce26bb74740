package io.frsm.server.config;

import java.time.Duration;

/** The bounds the node's timing keys share. */
final class Timings {
  private Timings() {}

  static final Duration ONE_MS = Duration.ofMillis(1);

  /**
   * Upper bound of every timing but the storage engine's: no setting needs more, and it keeps every
   * duration far from overflowing the nanosecond and millisecond arithmetic of the node, the core
   * and ZooKeeper.
   */
  static final Duration MAX = Duration.ofHours(1);
}
