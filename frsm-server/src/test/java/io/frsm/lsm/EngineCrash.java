package io.frsm.lsm;

/**
 * Test access to {@link LsmEngine#kill()} (package-private in frsm-lsm): stop as if the process
 * died, without the flush a close does, so the next open replays the commit log.
 */
public final class EngineCrash {
  private EngineCrash() {}

  public static void kill(LsmEngine engine) {
    engine.kill();
  }
}
