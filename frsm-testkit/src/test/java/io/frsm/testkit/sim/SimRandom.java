package io.frsm.testkit.sim;

import io.frsm.consensus.core.RandomSource;
import java.util.SplittableRandom;

/**
 * A seeded random stream that forks: each node and subsystem draws from its own fork, so adding a
 * draw in one place does not reshuffle the choices of another.
 */
public final class SimRandom implements RandomSource {
  private final SplittableRandom random;

  public SimRandom(long seed) {
    this(new SplittableRandom(seed));
  }

  private SimRandom(SplittableRandom random) {
    this.random = random;
  }

  public SimRandom fork() {
    return new SimRandom(random.split());
  }

  @Override
  public long nextLong(long boundExclusive) {
    return random.nextLong(boundExclusive);
  }

  public int nextInt(int boundExclusive) {
    return random.nextInt(boundExclusive);
  }

  /** Uniform in {@code [min, max]}. */
  public long between(long min, long max) {
    return min == max ? min : min + random.nextLong(max - min + 1);
  }

  public boolean chance(double probability) {
    return probability > 0 && random.nextDouble() < probability;
  }

  /** Exponentially distributed waiting time with the given rate per second, in nanoseconds. */
  public long exponentialNanos(double perSecond) {
    return (long) (-Math.log(1 - random.nextDouble()) / perSecond * 1e9);
  }
}
