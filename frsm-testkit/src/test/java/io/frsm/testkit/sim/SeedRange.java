package io.frsm.testkit.sim;

/**
 * The seeds a simulation test runs: {@code -Dfrsm.sim.seed=N} replays one seed; otherwise {@code
 * -D<countProperty>=N} seeds (default: the CI budget) from {@code -Dfrsm.sim.firstSeed=S} (1).
 */
record SeedRange(long first, long count, boolean replay) {

  static SeedRange fromSystemProperties(String countProperty, long ciSeeds) {
    String one = System.getProperty("frsm.sim.seed");
    if (one != null) {
      return new SeedRange(Long.parseLong(one), 1, true);
    }
    return new SeedRange(
        Long.getLong("frsm.sim.firstSeed", 1), Long.getLong(countProperty, ciSeeds), false);
  }
}
