package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Sabotage;
import io.frsm.testkit.history.HistoryJsonReader;
import io.frsm.testkit.history.LinearizabilityChecker;
import io.frsm.testkit.history.Operation;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The linearizability check of workload (b): its teeth, its regressions and its export. */
class LinearizabilityCheckTest {

  @Test
  void skippedQuench_isCaughtByTheLinearizabilityChecker_withinTheCiBudget() {
    for (long seed = 1; seed <= LinearizabilitySeedsTest.CI_SEEDS; seed++) {
      try {
        LinearizabilityWorkload.run(
            seed, FaultMix.forSeed(seed), Set.of(Sabotage.SKIP_QUENCH), SimStorage.MEMORY);
      } catch (AssertionError caught) {
        String message = caught.getMessage();
        System.out.println("SKIP_QUENCH caught: " + message.lines().limit(3).toList());
        assertTrue(message.contains("seed " + seed), "names its seed");
        assertTrue(message.contains("NOT_LINEARIZABLE"), "caught by the history check: " + message);
        assertTrue(
            Files.exists(
                Path.of(
                    System.getProperty("basedir", "."),
                    "target",
                    "linearizability",
                    "seed-" + seed + ".jsonl")),
            "history written");
        return;
      }
    }
    throw new AssertionError(
        "SKIP_QUENCH not caught in " + LinearizabilitySeedsTest.CI_SEEDS + " seeds");
  }

  /**
   * Seed 4 (calm) found that a fence retrying over its own quench leftover bumped the version a
   * second time (answered {@code t+2}, no operation answered {@code t+1}); see {@code OwnQuench}.
   */
  @Test
  void fenceRetryingOverItsOwnQuench_doesNotBumpTwice_seed4() {
    LinearizabilityWorkload.Result r = LinearizabilityWorkload.run(4);
    assertTrue(r.check().isLinearizable(), r.check()::explain);
  }

  @Test
  void seedHistory_exportedAsJsonLines_readsBackEqual_andChecksTheSame() throws Exception {
    LinearizabilityWorkload.Result r = LinearizabilityWorkload.run(7);
    Path file = LinearizabilityWorkload.writeHistory(-7, r.history());
    List<Operation> back;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      back = HistoryJsonReader.read(in);
    }
    assertEquals(r.history(), back);
    assertEquals(r.history().size(), Files.readAllLines(file).size());
    FaultMix mix = FaultMix.forSeed(7);
    LinearizabilityChecker checker =
        new LinearizabilityChecker(
            LinearizabilityChecker.DEFAULT_STEP_BUDGET_PER_KEY,
            LinearizabilityWorkload.maxEffectDelayNanos(Simulation.simConfig(mix.nodes()), mix));
    assertEquals(r.check(), checker.check(back));
  }

  @Test
  void sameSeedTwice_sameTraceAndHistory() {
    LinearizabilityWorkload.Result first = LinearizabilityWorkload.run(12);
    LinearizabilityWorkload.Result second = LinearizabilityWorkload.run(12);
    assertEquals(first.traceHash(), second.traceHash());
    assertEquals(first.history(), second.history());
  }
}
