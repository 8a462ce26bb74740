package io.frsm.server.workload;

import java.util.SplittableRandom;

/**
 * Draws key indexes in [0, n) from a Zipf distribution with exponent {@code theta} (the paper's
 * workload uses 0.99): index 0 is the hottest. Gray et al.'s method ("Quickly generating
 * billion-record synthetic databases", SIGMOD '94), as YCSB uses it: O(n) setup to compute the
 * normalisation, O(1) per draw. With {@code theta == 0} every index is equally likely. Hot indexes
 * are scattered over the key space by a fixed permutation ({@link #next}), so hot keys do not share
 * one token range. Not thread-safe: one per client thread.
 */
public final class ZipfianKeys {
  private final long n;
  private final double theta;
  private final double alpha;
  private final double zetaN;
  private final double eta;
  private final SplittableRandom random;
  private final long multiplier;

  public ZipfianKeys(long n, double theta, long seed) {
    if (n < 1 || n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("key count must be in [1, 2^31-1], was " + n);
    }
    if (theta < 0 || theta >= 1) {
      throw new IllegalArgumentException("theta must be in [0, 1), was " + theta);
    }
    this.n = n;
    this.theta = theta;
    this.random = new SplittableRandom(seed);
    this.multiplier = coprimeMultiplier(n);
    this.zetaN = zeta(n, theta);
    double zeta2 = zeta(Math.min(2, n), theta);
    this.alpha = 1.0 / (1.0 - theta);
    this.eta = n <= 2 ? 1 : (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetaN);
  }

  private static double zeta(long n, double theta) {
    double sum = 0;
    for (long i = 1; i <= n; i++) {
      sum += 1 / Math.pow(i, theta);
    }
    return sum;
  }

  /** The next rank: 0 is the most popular. */
  public long nextRank() {
    if (theta == 0) {
      return random.nextLong(n);
    }
    double u = random.nextDouble();
    double uz = u * zetaN;
    if (uz < 1) {
      return 0;
    }
    if (uz < 1 + Math.pow(0.5, theta)) {
      return Math.min(1, n - 1);
    }
    long rank = (long) (n * Math.pow(eta * u - eta + 1, alpha));
    return Math.min(rank, n - 1);
  }

  /** The next key index: a rank scattered over [0, n). */
  public long next() {
    return Math.floorMod(nextRank() * multiplier, n);
  }

  /** A multiplier coprime to n near n·(golden ratio − 1): rank → rank·a mod n is a bijection. */
  private static long coprimeMultiplier(long n) {
    long a = Math.max(1, (long) (n * 0.6180339887498949));
    while (gcd(a, n) != 1) {
      a++;
    }
    return a;
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
