package io.frsm.lsm;

/**
 * Test access to {@link LsmEngine#kill()} (package-private in frsm-lsm) for the consensus
 * simulator's LSM mode: stop as if the process died, without the flush a close does.
 */
public final class EngineCrash {
  private EngineCrash() {}

  public static void kill(LsmEngine engine) {
    engine.kill();
  }
}
