package io.frsm.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

class LinearizabilityCheckerPropertiesTest {
  private final LinearizabilityChecker checker = new LinearizabilityChecker();

  @Property(tries = 300)
  void historiesGeneratedFromTheModel_areAccepted(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 300) int count,
      @ForAll @IntRange(min = 0, max = 400) int spreadNanos) {
    List<Operation> history = RandomHistories.linearizable(new Random(seed), count, 5, spreadNanos);
    CheckResult result = checker.check(history);
    assertEquals(CheckResult.Verdict.LINEARIZABLE, result.verdict(), result::explain);
  }

  @Property(tries = 200)
  void historiesGeneratedFromTheModel_areAcceptedUnderTheirBoundedDelay(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 300) int count,
      @ForAll @IntRange(min = 0, max = 400) int spreadNanos) {
    List<Operation> history = RandomHistories.linearizable(new Random(seed), count, 5, spreadNanos);
    // Each operation takes effect within spreadNanos of its call.
    CheckResult result =
        new LinearizabilityChecker(LinearizabilityChecker.DEFAULT_STEP_BUDGET_PER_KEY, spreadNanos)
            .check(history);
    assertEquals(CheckResult.Verdict.LINEARIZABLE, result.verdict(), result::explain);
  }

  @Property(tries = 1500)
  void tinyHistories_agreeWithBruteForce_beforeAndAfterChangingOneRead(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 7) int count,
      @ForAll @IntRange(min = 0, max = 300) int spreadNanos) {
    Random random = new Random(seed);
    List<Operation> history = RandomHistories.linearizable(random, count, 3, spreadNanos);
    assertTrue(BruteForceChecker.isLinearizable(history), "generator made a bad history");
    assertTrue(checker.check(history).isLinearizable(), () -> checker.check(history).explain());

    Optional<List<Operation>> faulty = RandomHistories.withOneReadChanged(history, random);
    if (faulty.isPresent()) {
      boolean expected = BruteForceChecker.isLinearizable(faulty.get());
      Statistics.label("fault").collect(expected ? "still linearizable" : "not linearizable");
      CheckResult result = checker.check(faulty.get());
      assertEquals(
          expected ? CheckResult.Verdict.LINEARIZABLE : CheckResult.Verdict.NOT_LINEARIZABLE,
          result.verdict(),
          () -> faulty.get() + "\n" + result.explain());
    }
  }
}
