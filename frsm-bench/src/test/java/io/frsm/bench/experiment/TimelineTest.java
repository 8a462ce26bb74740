package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.api.FrsmException;
import io.frsm.api.NotExecutedException;
import org.junit.jupiter.api.Test;

/** The repair-time rules of the recovery experiment on hand-made timelines. */
class TimelineTest {
  private static final long START = 1_000_000_000L;
  private static final long FAST = 1_000_000; // 1 ms
  private static final long SLOW = 500_000_000; // 500 ms
  private static final double SLO_MICROS = 10_000; // 10 ms

  /** 20 windows; {@code latency[w]} per window, 0 for a window with no completed call. */
  private static Timeline timeline(long... latency) {
    Timeline t = new Timeline(START, latency.length);
    for (int w = 0; w < latency.length; w++) {
      if (latency[w] > 0) {
        for (int i = 0; i < 10; i++) {
          t.recordAt(START + w * Timeline.WINDOW_NANOS + 1, latency[w], null);
        }
      }
    }
    return t;
  }

  @Test
  void repairedAtTheLastViolatingWindowAfterTheFailure() {
    long[] l = new long[20];
    java.util.Arrays.fill(l, FAST);
    l[5] = SLOW;
    l[6] = 0; // no call completed: a violation too
    l[9] = SLOW;
    Timeline t = timeline(l);
    assertEquals(9, t.repairedWindow(5, 19, SLO_MICROS));
    assertEquals(6, t.firstSettledWindow(5, 19, SLO_MICROS, 2));
  }

  @Test
  void aLateStallMovesTheStrictRepairButNotTheFirstSettledWindow() {
    long[] l = new long[20];
    java.util.Arrays.fill(l, FAST);
    l[16] = 0;
    Timeline t = timeline(l);
    assertEquals(16, t.repairedWindow(5, 19, SLO_MICROS));
    assertEquals(5, t.firstSettledWindow(5, 19, SLO_MICROS, 10));
  }

  @Test
  void neverRepairedWhenTheLastWindowStillViolates() {
    long[] l = new long[20];
    java.util.Arrays.fill(l, FAST);
    l[18] = SLOW;
    Timeline t = timeline(l);
    assertEquals(-1, t.repairedWindow(5, 19, SLO_MICROS));
  }

  @Test
  void failuresAreCountedByKindAndNotAsLatency() {
    Timeline t = new Timeline(START, 3);
    long at = START + Timeline.WINDOW_NANOS + 5;
    t.recordAt(at, FAST, new NotExecutedException("retry me"));
    t.recordAt(at, FAST, new FrsmException("broken"));
    t.recordAt(at, FAST, null);
    t.recordAt(START - 1, FAST, null); // before the timeline: ignored
    assertEquals(1, t.calls(1));
    assertEquals(1, t.retryableFailures(1));
    assertEquals(1, t.otherFailures(1));
    assertEquals(0, t.calls(0));
  }
}
