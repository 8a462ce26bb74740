package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link StopHandOver} on its own: the stop's wait ends once no held range's hand-off is under way,
 * and every range held at the stop is counted once, handed off only if the core shipped the very
 * term it held at the stop.
 */
class StopHandOverTest {
  @Test
  void settles_onlyOnceNoHeldRangeIsUnderWay() {
    CompletableFuture<Void> settled = new CompletableFuture<>();
    StopHandOver stop = new StopHandOver(Map.of(1, 5L, 2, 7L), settled);
    stop.check(Set.of(2)::contains);
    assertFalse(settled.isDone(), "range 2 still hands off");
    stop.check(r -> r == 3); // a range not held at the stop does not hold it up
    assertTrue(settled.isDone());
  }

  @Test
  void outcome_countsEachHeldRangeOnce_handedOffOnlyForTheTermHeldAtTheStop() {
    StopHandOver stop = new StopHandOver(Map.of(1, 5L, 2, 7L, 3, 9L), new CompletableFuture<>());
    Map<Integer, Long> shipped = Map.of(1, 5L, 2, 6L); // range 2 shipped an earlier term only
    StopHandOver.Outcome o = stop.outcome((r, t) -> shipped.getOrDefault(r, -1L) == t);
    assertEquals(new StopHandOver.Outcome(1, 2), o);
  }

  @Test
  void nothingHeld_settlesAtOnce_withNothingCounted() {
    CompletableFuture<Void> settled = new CompletableFuture<>();
    StopHandOver stop = new StopHandOver(Map.of(), settled);
    stop.check(r -> true);
    assertTrue(settled.isDone());
    assertEquals(new StopHandOver.Outcome(0, 0), stop.outcome((r, t) -> true));
  }
}
