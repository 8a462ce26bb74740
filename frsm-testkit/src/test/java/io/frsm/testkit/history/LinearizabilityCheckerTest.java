package io.frsm.testkit.history;

import static io.frsm.testkit.history.Ops.cas;
import static io.frsm.testkit.history.Ops.create;
import static io.frsm.testkit.history.Ops.delete;
import static io.frsm.testkit.history.Ops.fence;
import static io.frsm.testkit.history.Ops.found;
import static io.frsm.testkit.history.Ops.get;
import static io.frsm.testkit.history.Ops.keyExists;
import static io.frsm.testkit.history.Ops.mismatch;
import static io.frsm.testkit.history.Ops.mismatchAbsent;
import static io.frsm.testkit.history.Ops.onKey;
import static io.frsm.testkit.history.Ops.v;
import static io.frsm.testkit.history.Ops.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LinearizabilityCheckerTest {
  private final LinearizabilityChecker checker = new LinearizabilityChecker();

  private void assertLinearizable(Operation... history) {
    CheckResult result = checker.check(List.of(history));
    assertEquals(CheckResult.Verdict.LINEARIZABLE, result.verdict(), result::explain);
  }

  private Violation assertViolation(Operation... history) {
    CheckResult result = checker.check(List.of(history));
    assertEquals(CheckResult.Verdict.NOT_LINEARIZABLE, result.verdict(), result::explain);
    return result.violations().get(0);
  }

  // ---- known-bad histories ----

  @Test
  void staleRead_isRejected() {
    Violation violation =
        assertViolation(
            create(1, "a", 0, 10, written(0, 0)),
            cas(1, v(0, 0), "b", 20, 30, written(0, 1)),
            get(2, 40, 50, found("a", 0, 0)));
    assertEquals(OperationKind.GET, violation.blocking().kind());
    assertTrue(violation.stateBefore().contains("\"b\" at (0, 1)"), violation::explain);
    assertTrue(
        violation.window().get(0).reason().contains("present with \"a\" at (0, 0)"),
        violation::explain);
  }

  @Test
  void lostUpdate_twoCasFromTheSameVersionBothSucceed_isRejected() {
    assertViolation(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 60, written(0, 1)),
        cas(2, v(0, 0), "c", 25, 55, written(0, 1)));
  }

  @Test
  void resurrectedDeletedValue_getAfterCompletedDelete_isRejected() {
    assertViolation(
        create(1, "a", 0, 10, written(0, 0)),
        delete(1, v(0, 0), 20, 30, Output.DELETED),
        get(2, 40, 50, found("a", 0, 0)));
  }

  @Test
  void casSucceedingOnStaleVersion_isRejected() {
    assertViolation(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 30, written(0, 1)),
        cas(2, v(0, 0), "c", 40, 50, written(0, 1)));
  }

  @Test
  void createOnPresentKeySucceeding_isRejected() {
    assertViolation(create(1, "a", 0, 10, written(0, 0)), create(2, "b", 20, 30, written(1, 0)));
  }

  @Test
  void recreateReusingTheDeletedEpoch_isRejected() {
    assertViolation(
        create(1, "a", 0, 10, written(3, 0)),
        delete(1, v(3, 0), 20, 30, Output.DELETED),
        create(2, "b", 40, 50, written(3, 0)));
  }

  @Test
  void readOfAValueNeverWritten_isRejected() {
    assertViolation(create(1, "a", 0, 10, written(0, 0)), get(2, 5, 15, found("zzz", 0, 0)));
  }

  @Test
  void casMismatchReportingTheExpectedVersion_isRejected() {
    assertViolation(
        create(1, "a", 0, 10, written(0, 0)), cas(2, v(0, 0), "b", 20, 30, mismatch("a", 0, 0)));
  }

  @Test
  void unknownCreateObservedAtAnEpochNotAboveAnEarlierOne_isRejected() {
    // The unknown create can only take effect after the delete of epoch 5: its epoch must exceed 5.
    assertViolation(
        create(1, "a", 0, 10, written(5, 0)),
        delete(1, v(5, 0), 20, 30, Output.DELETED),
        create(2, "b", 40, 50, Output.UNKNOWN),
        get(3, 60, 70, found("b", 4, 0)));
  }

  @Test
  void createAfterUnobservedFenceEpoch_mustLeaveRoomForIt() {
    // Fence on absent moves epoch 0 to some unobserved epoch > 0, so a later create needs > 1.
    assertViolation(
        create(1, "a", 0, 10, written(0, 0)),
        delete(1, v(0, 0), 20, 30, Output.DELETED),
        fence(2, 40, 50, Output.ABSENT),
        create(3, "b", 60, 70, written(1, 0)));
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        delete(1, v(0, 0), 20, 30, Output.DELETED),
        fence(2, 40, 50, Output.ABSENT),
        create(3, "b", 60, 70, written(2, 0)));
  }

  @Test
  void violationOnOneKey_isReportedForThatKeyOnly() {
    CheckResult result =
        checker.check(
            List.of(
                onKey("good", create(1, "a", 0, 10, written(0, 0))),
                onKey("good", get(1, 20, 30, found("a", 0, 0))),
                onKey("bad", create(2, "a", 0, 10, written(0, 0))),
                onKey("bad", get(2, 20, 30, Output.ABSENT))));
    assertEquals(1, result.violations().size(), result::explain);
    assertEquals(Bytes.utf8("bad"), result.violations().get(0).key());
    assertEquals(2, result.keysChecked());
  }

  // ---- known-good histories ----

  @Test
  void concurrentCasRace_oneWinsOneMismatches_isLinearizable() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 60, written(0, 1)),
        cas(2, v(0, 0), "c", 25, 55, mismatch("b", 0, 1)),
        get(3, 30, 40, found("a", 0, 0)),
        get(3, 45, 70, found("b", 0, 1)));
  }

  @Test
  void readsConcurrentWithAWrite_mayReturnOldOrNew() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 100, written(0, 1)),
        get(2, 30, 40, found("b", 0, 1)),
        get(3, 50, 60, found("b", 0, 1)),
        get(4, 25, 90, found("a", 0, 0)));
  }

  @Test
  void unknownCasThatTookEffect_isLinearizedWhenObserved() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 30, Output.UNKNOWN),
        get(2, 40, 50, found("a", 0, 0)),
        get(2, 1000, 1010, found("b", 0, 1)));
  }

  @Test
  void unknownCasThatDidNotTakeEffect_isLeftOut() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 30, Output.UNKNOWN),
        fence(1, 40, 50, found("a", 0, 1)),
        cas(2, v(0, 1), "c", 60, 70, written(0, 2)),
        get(2, 80, 90, found("c", 0, 2)));
  }

  @Test
  void unknownCreateThatTookEffect_bindsItsEpochFromALaterRead() {
    assertLinearizable(
        create(1, "a", 0, 10, written(2, 0)),
        delete(1, v(2, 0), 20, 30, Output.DELETED),
        create(2, "b", 40, 50, Output.UNKNOWN),
        get(3, 60, 70, found("b", 7, 0)),
        cas(3, v(7, 0), "c", 80, 90, written(7, 1)));
  }

  @Test
  void unknownCreateThatTookEffect_canExplainAKeyExists() {
    assertLinearizable(
        create(1, "a", 0, 10, Output.UNKNOWN), create(2, "b", 20, 30, keyExists("a", 4, 0)));
  }

  @Test
  void unknownCreateThatDidNotTakeEffect_isLeftOut() {
    assertLinearizable(
        create(1, "a", 0, 10, Output.UNKNOWN),
        get(2, 20, 30, Output.ABSENT),
        create(2, "b", 40, 50, written(3, 0)),
        get(2, 60, 70, found("b", 3, 0)));
  }

  @Test
  void fenceOnAbsentKey_thenCreateAtAHigherEpoch_isLinearizable() {
    assertLinearizable(
        fence(1, 0, 10, Output.ABSENT),
        get(1, 20, 30, Output.ABSENT),
        create(2, "a", 40, 50, written(9, 0)),
        fence(2, 60, 70, found("a", 9, 1)),
        cas(1, v(9, 0), "x", 80, 90, mismatch("a", 9, 1)));
  }

  @Test
  void deleteAndRecreateWithANewEpoch_isLinearizable() {
    assertLinearizable(
        create(1, "a", 0, 10, written(1, 0)),
        cas(1, v(1, 0), "b", 20, 30, written(1, 1)),
        delete(2, v(1, 1), 40, 50, Output.DELETED),
        get(3, 60, 70, Output.ABSENT),
        cas(3, v(1, 1), "c", 80, 90, mismatchAbsent()),
        create(1, "d", 100, 110, written(2, 0)),
        get(2, 120, 130, found("d", 2, 0)));
  }

  @Test
  void notExecutedOperations_areIgnored() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        cas(1, v(0, 0), "b", 20, 30, Output.NOT_EXECUTED),
        get(2, 40, 50, found("a", 0, 0)));
  }

  @Test
  void operationsThatTouch_countAsConcurrent() {
    assertLinearizable(
        create(1, "a", 0, 10, written(0, 0)),
        get(2, 10, 20, Output.ABSENT)); // the get's call equals the create's return
  }

  @Test
  void searchBudgetExhausted_reportsInconclusive() {
    List<Operation> history = RandomHistories.linearizable(new java.util.Random(3), 200, 5, 250);
    CheckResult result =
        new LinearizabilityChecker(50, LinearizabilityChecker.UNBOUNDED_DELAY).check(history);
    assertEquals(CheckResult.Verdict.INCONCLUSIVE, result.verdict(), result::explain);
    assertEquals(List.of(Bytes.utf8(Ops.KEY)), result.inconclusiveKeys());
  }

  @Test
  void unknownCasObservedAfterItsDeadline_isRejectedOnlyWithTheBoundedDelay() {
    Operation[] history = {
      create(1, "a", 0, 10, written(0, 0)),
      cas(1, v(0, 0), "b", 20, 30, Output.UNKNOWN),
      get(2, 600, 700, found("a", 0, 0)), // so the cas took effect after 700 ns
      get(2, 1000, 1010, found("b", 0, 1))
    };
    assertLinearizable(history);
    CheckResult bounded =
        new LinearizabilityChecker(LinearizabilityChecker.DEFAULT_STEP_BUDGET_PER_KEY, 500)
            .check(List.of(history));
    assertEquals(CheckResult.Verdict.NOT_LINEARIZABLE, bounded.verdict(), bounded::explain);
    // The bound is only a fast path: checkBoundedFirst falls back to the real (unbounded) check.
    assertTrue(LinearizabilityChecker.checkBoundedFirst(List.of(history), 500).isLinearizable());
  }

  @Test
  void checkBoundedFirst_stillRejectsAHistoryThatIsWrongWithoutTheBound() {
    Operation[] history = {
      create(1, "a", 0, 10, written(0, 0)),
      cas(1, v(0, 0), "b", 20, 30, written(0, 1)),
      get(2, 600, 700, found("a", 0, 0)) // stale read after a completed cas
    };
    assertEquals(
        CheckResult.Verdict.NOT_LINEARIZABLE,
        LinearizabilityChecker.checkBoundedFirst(List.of(history), 500).verdict());
  }

  @Test
  void nonPositiveBudget_isRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new LinearizabilityChecker(0, LinearizabilityChecker.UNBOUNDED_DELAY));
  }
}
