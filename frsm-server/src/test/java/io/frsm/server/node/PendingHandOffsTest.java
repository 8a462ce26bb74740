package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.HandOffShipment;
import io.frsm.server.zk.HandOffDeclined;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * {@link PendingHandOffs}: the core's answers to a hand-off reach the agent — the drain's size when
 * it begins (what the drain budget counts), then the shipment or the decline — once each.
 */
class PendingHandOffsTest {
  private final PendingHandOffs pending = new PendingHandOffs();
  private final List<Integer> begun = new ArrayList<>();

  @Test
  void begun_isHeardOnce_thenTheShipment() {
    CompletableFuture<HandOffShipment> answer = pending.handOff(3, 7, begun::add, (r, t) -> true);
    pending.begun(3, 7, 42);
    pending.begun(3, 7, 43); // a second report is nobody's
    pending.begun(3, 8, 44); // another term's is nobody's
    assertEquals(List.of(42), begun);
    HandOffShipment s = new HandOffShipment(3, 7, List.of());
    pending.shipped(s);
    assertEquals(s, answer.join());
  }

  @Test
  void aDeclinedHandOff_isNotBegun_andAnsweredExceptionally() {
    CompletableFuture<HandOffShipment> answer = pending.handOff(3, 7, begun::add, (r, t) -> true);
    pending.declined(3, 7, 300);
    pending.begun(3, 7, 1); // after the answer: forgotten
    assertEquals(List.of(), begun);
    CompletionException e =
        org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, answer::join);
    assertTrue(e.getCause() instanceof HandOffDeclined);
    assertEquals(300, ((HandOffDeclined) e.getCause()).writtenKeys());
  }

  @Test
  void aCoreThatStopped_answersNull_andForgetsTheListener() {
    CompletableFuture<HandOffShipment> answer = pending.handOff(3, 7, begun::add, (r, t) -> false);
    assertNull(answer.join(), "not queued: no shipment");
    CompletableFuture<HandOffShipment> other = pending.handOff(4, 7, begun::add, (r, t) -> true);
    pending.failAll();
    assertNull(other.join());
    pending.begun(4, 7, 5);
    assertEquals(List.of(), begun);
  }
}
