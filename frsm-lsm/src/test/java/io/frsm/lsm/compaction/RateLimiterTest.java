package io.frsm.lsm.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  @Test
  void debt_isPaidByWaitingInProportionToTheRate() {
    AtomicLong now = new AtomicLong();
    RateLimiter limiter = new RateLimiter(1000, now::get);
    // Starts empty: 500 bytes at 1000 B/s need half a second.
    assertEquals(500_000_000L, limiter.reserve(500));
    now.addAndGet(500_000_000L);
    assertEquals(0, limiter.reserve(0));
    // A second later a full second of credit is there, but no more (burst cap).
    now.addAndGet(5_000_000_000L);
    assertEquals(0, limiter.reserve(1000));
    assertEquals(1_000_000_000L, limiter.reserve(1000));
  }

  @Test
  void nonPositiveRate_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> new RateLimiter(0));
  }
}
