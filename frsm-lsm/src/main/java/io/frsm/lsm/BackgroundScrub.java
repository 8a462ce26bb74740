package io.frsm.lsm;

import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * When the {@link Scrubber} runs: on its own thread from open when {@code scrubEnabled}, else only
 * when a test or tool steps it on the calling thread. Never both: the scrub holds one cursor.
 */
final class BackgroundScrub {
  private final Scrubber scrubber;
  private final boolean enabled;
  private final long startDelayMs;

  BackgroundScrub(Scrubber scrubber, boolean enabled, long startDelayMs) {
    this.scrubber = scrubber;
    this.enabled = enabled;
    this.startDelayMs = startDelayMs;
  }

  /** Starts the endless scrub on {@code thread} if it is enabled. */
  void start(Executor thread) {
    if (enabled) {
      thread.execute(() -> scrubber.runUntilStopped(startDelayMs));
    }
  }

  /** See {@link LsmEngine#scrubPassNow()}. */
  void passNow() throws IOException {
    requireOff();
    while (scrubber.step()) {
      // next block
    }
  }

  /** See {@link LsmEngine#scrubStepNow()}. */
  boolean stepNow() throws IOException {
    requireOff();
    return scrubber.step();
  }

  private void requireOff() {
    if (enabled) {
      throw new IllegalStateException("the background scrub runs: scrubEnabled is true");
    }
  }

  ScrubStatus status() {
    return scrubber.status(enabled);
  }

  /** Ends the background scrub (its thread is interrupted afterwards). */
  void stop() {
    scrubber.stop();
  }
}
