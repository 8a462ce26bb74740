package io.frsm.consensus.core;

/**
 * Randomness injected into the core (back-off jitter). The simulator passes a seeded stream so a
 * run replays exactly; production passes any uniform source.
 */
@FunctionalInterface
public interface RandomSource {
  /** A uniform value in {@code [0, boundExclusive)}. REQUIRES: {@code boundExclusive > 0}. */
  long nextLong(long boundExclusive);
}
