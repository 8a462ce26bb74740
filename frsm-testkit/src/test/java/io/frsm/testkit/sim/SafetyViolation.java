package io.frsm.testkit.sim;

/** A safety invariant failed; the simulator adds the seed and step. */
public final class SafetyViolation extends AssertionError {
  public SafetyViolation(String message) {
    super(message);
  }
}
