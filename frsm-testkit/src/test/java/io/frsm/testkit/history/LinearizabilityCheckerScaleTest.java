package io.frsm.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Large histories finish (no wall-clock assertions: the budget guard is the limit that counts). */
class LinearizabilityCheckerScaleTest {

  @Test
  void tenThousandOperationsOnOneKeyWithFiveClients_areAccepted() {
    List<Operation> history = RandomHistories.linearizable(new Random(7), 10_000, 5, 250);
    CheckResult result = new LinearizabilityChecker().check(history);
    assertEquals(CheckResult.Verdict.LINEARIZABLE, result.verdict(), result::explain);
  }

  @Test
  void tenThousandOperationsWithABadCreateAtTheEnd_areRejectedUnderTheBoundedDelay() {
    List<Operation> history =
        new ArrayList<>(RandomHistories.linearizable(new Random(8), 10_000, 5, 250));
    long end = history.get(history.size() - 1).returnNanos() + 1_000;
    history.add(Ops.create(9, "late", end, end + 10, Ops.written(0, 0)));
    // Unknown outcomes in these histories take effect within 250 ns of their call.
    CheckResult result =
        new LinearizabilityChecker(LinearizabilityChecker.DEFAULT_STEP_BUDGET_PER_KEY, 250)
            .check(history);
    assertEquals(CheckResult.Verdict.NOT_LINEARIZABLE, result.verdict(), result::explain);
  }
}
