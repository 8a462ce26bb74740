package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ThrottleTest {
  private long now = 1_000_000_000_000L;

  @Test
  void unthrottled_neverWaits() {
    Throttle t = new Throttle(0, () -> now);
    for (int i = 0; i < 1000; i++) {
      assertEquals(0, t.reserve(1L << 30));
    }
  }

  @Test
  void aSecondsWorthGoesAtOnce_thenReservationsWaitTheirTurn() {
    Throttle t = new Throttle(1_000_000, () -> now);
    assertEquals(0, t.reserve(1_000_000), "a second's burst");
    assertEquals(500_000_000L, t.reserve(500_000), "half a second behind");
    assertEquals(1_000_000_000L, t.reserve(500_000));
    now += 2_000_000_000L; // idle: the backlog drained, one second's burst again
    assertEquals(0, t.reserve(1_000_000));
    assertEquals(1_000_000L, t.reserve(1_000));
  }
}
