package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.Backoff;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The reconnect back-off: the n-th consecutive failure waits within {@code [d/2, d]}, {@code d =
 * min(max, min·2ⁿ)}. The random source is injected, so every expectation here is exact.
 */
class BackoffTest {

  /** Always the largest value asked for: every delay is its ceiling {@code d}. */
  private static final RandomGenerator HIGHEST =
      new RandomGenerator() {
        @Override
        public long nextLong() {
          throw new UnsupportedOperationException("only bounded draws are expected");
        }

        @Override
        public long nextLong(long bound) {
          return bound - 1;
        }
      };

  /** Always zero: every delay is its floor {@code d/2}. */
  private static final RandomGenerator LOWEST =
      new RandomGenerator() {
        @Override
        public long nextLong() {
          throw new UnsupportedOperationException("only bounded draws are expected");
        }

        @Override
        public long nextLong(long bound) {
          return 0;
        }
      };

  private static List<Long> delays(Backoff backoff, int count) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(backoff.nextDelayMillis());
    }
    return out;
  }

  @Test
  void ceiling_doublesFromTheMinimum_untilTheCap() {
    Backoff backoff = new Backoff(20, 2_000, () -> HIGHEST);
    assertEquals(
        List.of(20L, 40L, 80L, 160L, 320L, 640L, 1_280L, 2_000L, 2_000L, 2_000L),
        delays(backoff, 10));
  }

  @Test
  void floor_isHalfTheCeiling() {
    Backoff backoff = new Backoff(20, 2_000, () -> LOWEST);
    assertEquals(List.of(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1_000L, 1_000L), delays(backoff, 9));
  }

  @Test
  void cap_holdsAfterManyFailures() {
    Backoff backoff = new Backoff(20, 2_000, () -> HIGHEST);
    for (int i = 0; i < 100_000; i++) {
      long delay = backoff.nextDelayMillis();
      assertTrue(delay <= 2_000, "failure " + i + " waited " + delay + " ms");
    }
    assertEquals(2_000, backoff.nextDelayMillis());
  }

  @Test
  void jitter_staysWithinHalfToFullCeiling_andSpreadsPeers() {
    long[] ceilings = {20, 40, 80, 160, 320, 640, 1_280, 2_000, 2_000};
    SplittableRandom seeded = new SplittableRandom(20_260_101L);
    List<Set<Long>> seenPerStep = new ArrayList<>();
    for (int step = 0; step < ceilings.length; step++) {
      seenPerStep.add(new HashSet<>());
    }
    for (int peer = 0; peer < 200; peer++) {
      Backoff backoff = new Backoff(20, 2_000, () -> seeded);
      for (int step = 0; step < ceilings.length; step++) {
        long delay = backoff.nextDelayMillis();
        long d = ceilings[step];
        assertTrue(
            d / 2 <= delay && delay <= d,
            "step " + step + ": " + delay + " ms outside [" + d / 2 + ", " + d + "]");
        seenPerStep.get(step).add(delay);
      }
    }
    // Peers that failed together must not redial together: at every step the 200 delays differ.
    for (int step = 0; step < ceilings.length; step++) {
      assertTrue(
          seenPerStep.get(step).size() >= 5,
          "step " + step + " drew only " + seenPerStep.get(step));
    }
  }

  @Test
  void reset_startsOverFromTheMinimum() {
    Backoff backoff = new Backoff(20, 2_000, () -> HIGHEST);
    delays(backoff, 6);
    assertEquals(6, backoff.failures());
    backoff.reset();
    assertEquals(0, backoff.failures());
    assertEquals(List.of(20L, 40L), delays(backoff, 2));
  }

  @Test
  void minimumOfOneMillisecond_neverWaitsZero() {
    Backoff backoff = new Backoff(1, 1, () -> LOWEST);
    assertEquals(List.of(1L, 1L, 1L), delays(backoff, 3));
  }

  /**
   * Regression: the ceiling was {@code min << n} with only a negative result treated as overflow,
   * so a large minimum lost its top bits: {@code 2³⁴+1 << 30} came out as 2³⁰ (below the minimum)
   * and {@code 2⁴⁰ << 30} as 0, whose empty jitter range threw on the event loop and stopped
   * redialing.
   */
  @Test
  void largeMinimum_neverWrapsBelowTheMinimum() {
    long min = (1L << 34) + 1;
    Backoff wrapsLow = new Backoff(min, Long.MAX_VALUE, () -> HIGHEST);
    long previous = 0;
    for (long delay : delays(wrapsLow, 70)) {
      assertTrue(delay >= min && delay >= previous, delay + " after " + previous);
      previous = delay;
    }
    assertEquals(Long.MAX_VALUE, previous);

    Backoff wrapsToZero = new Backoff(1L << 40, Long.MAX_VALUE, () -> LOWEST);
    for (long delay : delays(wrapsToZero, 70)) {
      assertTrue(delay >= 1L << 39, "delay " + delay);
    }
  }

  @Test
  void invalidBounds_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(0, 10));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(20, 10));
  }
}
