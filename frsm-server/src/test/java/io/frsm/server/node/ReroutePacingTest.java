package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReroutePacingTest {
  /** Records each pause asked for and holds its continuation until the test runs it. */
  private final List<Long> pauses = new ArrayList<>();

  private final List<Runnable> held = new ArrayList<>();
  private final ReroutePacing pacing =
      new ReroutePacing(
          (nanos, then) -> {
            pauses.add(nanos);
            held.add(then);
          });

  @Test
  void theFirstReroute_runsAtOnce() {
    CompletableFuture<String> answer = CompletableFuture.completedFuture("ran");
    assertSame(answer, pacing.reroute(0, () -> answer));
    assertTrue(pauses.isEmpty());
  }

  @Test
  void laterReroutes_waitPausesDoublingFrom10msTo500ms() {
    long total = 0;
    for (int rerouted = 1; rerouted < OperationRouter.MAX_REROUTES; rerouted++) {
      CompletableFuture<String> result =
          pacing.reroute(rerouted, () -> CompletableFuture.completedFuture("ran"));
      assertFalse(result.isDone(), "nothing runs before its pause");
      held.remove(0).run();
      assertEquals("ran", result.getNow(null));
      total += ReroutePacing.pauseBefore(rerouted);
    }
    assertEquals(
        List.of(10L, 20L, 40L, 80L, 160L, 320L, 500L, 500L, 500L),
        pauses.stream().map(TimeUnit.NANOSECONDS::toMillis).toList());
    // The whole budget rides out a hand-over of about two seconds, not milliseconds.
    assertEquals(2_130, TimeUnit.NANOSECONDS.toMillis(total));
  }

  @Test
  void aPausedAttemptThatThrows_failsTheResult_neverLeavesItOpen() {
    CompletableFuture<String> result =
        pacing.reroute(
            2,
            () -> {
              throw new IllegalStateException("core closed");
            });
    held.remove(0).run();
    ExecutionException e = assertThrows(ExecutionException.class, result::get);
    assertEquals("core closed", e.getCause().getMessage());
  }

  @Test
  void aPausedAttemptThatFails_failsTheResult() {
    CompletableFuture<String> result =
        pacing.reroute(3, () -> CompletableFuture.failedFuture(new IllegalStateException("lost")));
    held.remove(0).run();
    assertTrue(result.isCompletedExceptionally());
  }
}
