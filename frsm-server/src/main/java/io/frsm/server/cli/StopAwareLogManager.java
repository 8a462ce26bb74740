package io.frsm.server.cli;

import java.util.logging.LogManager;

/**
 * The {@code frsm} command's {@link LogManager}: the JDK's, except that the reset its own shutdown
 * hook does — closing every handler — waits until the node's graceful stop, another shutdown hook,
 * has ended. Shutdown hooks run concurrently, so with the plain manager a SIGTERM'd node's console
 * handler was closed while its stop ran, and the stop's lines (the drain, the hand-offs, "node N
 * stopping: …") were lost: an operator saw a node go silent, not how it stopped.
 *
 * <p>{@link Frsm#main} installs it ({@code java.util.logging.manager}) before any logger exists;
 * where it is not the JVM's manager (an embedding application, a test JVM) {@link #keepingLogsOpen}
 * leaves the stop as it is.
 */
public final class StopAwareLogManager extends LogManager {
  /** The class name {@code java.util.logging.manager} takes, without loading the class. */
  static final String NAME = "io.frsm.server.cli.StopAwareLogManager";

  /** Stops registered to run at shutdown that have not ended yet. */
  private int stopsPending;

  /** Whether a reset came while a stop was pending: it runs when the last stop ends. */
  private boolean resetDeferred;

  public StopAwareLogManager() {}

  @Override
  public void reset() {
    synchronized (this) {
      if (stopsPending > 0) {
        resetDeferred = true;
        return;
      }
    }
    super.reset();
  }

  /**
   * {@code stop}, to be run by a shutdown hook, such that logging stays open until it ends. Call it
   * when the hook is registered, not when it runs: the hooks start together, and the manager's own
   * may reset first.
   */
  static Runnable keepingLogsOpen(Runnable stop) {
    return LogManager.getLogManager() instanceof StopAwareLogManager manager
        ? manager.keeping(stop)
        : stop;
  }

  /** {@code stop}, holding this manager's reset back from now until it has run. */
  Runnable keeping(Runnable stop) {
    reserve();
    return () -> {
      try {
        stop.run();
      } finally {
        release();
      }
    };
  }

  private synchronized void reserve() {
    stopsPending++;
  }

  private void release() {
    boolean resetNow;
    synchronized (this) {
      if (stopsPending <= 0) {
        throw new IllegalStateException("a stop released logging it had not reserved");
      }
      stopsPending--;
      resetNow = stopsPending == 0 && resetDeferred;
      if (resetNow) {
        resetDeferred = false;
      }
    }
    if (resetNow) {
      super.reset();
    }
  }
}
