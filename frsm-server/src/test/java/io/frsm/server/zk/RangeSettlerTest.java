package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;

/**
 * The settle wait's timeout counts time without progress (docs/OPERATIONS.md "Membership changes",
 * {@code node.membershipStepTimeout}). The clock is a fake that each look at a record advances.
 */
class RangeSettlerTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final long LOOK_NANOS = Duration.ofSeconds(5).toNanos();

  /**
   * Fake records: range r is settled once the clock reached {@code settledAtSeconds.get(r)} (never
   * if absent); each get advances the clock by 5 s and fires its watcher, so the settler never
   * waits on the real clock.
   */
  private static final class Records implements RangeSettler.Records {
    final AtomicLong clock = new AtomicLong();
    final Set<Integer> asked = new TreeSet<>();
    final Map<Integer, Integer> settledAtSeconds;

    Records(Map<Integer, Integer> settledAtSeconds) {
      this.settledAtSeconds = settledAtSeconds;
    }

    @Override
    public void ask(long version, int range) {
      asked.add(range);
    }

    @Override
    public RangeSettleRequests.Request get(long version, int range, Watcher watcher)
        throws Exception {
      long now = clock.addAndGet(LOOK_NANOS);
      Integer at = settledAtSeconds.get(range);
      boolean settled = at != null && now >= Duration.ofSeconds(at).toNanos();
      watcher.process(null);
      return new RangeSettleRequests.Request(version, range, settled ? 1 : -1);
    }

    StepDeadline deadline() {
      return new StepDeadline(TIMEOUT, clock::get);
    }
  }

  @Test
  void settle_thatKeepsSettlingRanges_runsPastTheTimeout() throws Exception {
    // A range settled every 50 s, 200 s in all; the timeout is 60 s without progress.
    Records records = new Records(Map.of(3, 50, 1, 100, 4, 150, 2, 200));
    new RangeSettler(records).settle(7, Set.of(1, 2, 3, 4), records.deadline());
    assertEquals(Set.of(1, 2, 3, 4), records.asked);
    assertTrue(records.clock.get() >= Duration.ofSeconds(200).toNanos(), "" + records.clock);
  }

  @Test
  void settle_withoutProgressForTheTimeout_timesOutNamingTheOpenRanges() {
    Records records = new Records(Map.of(5, 0));
    TimeoutException e =
        assertThrows(
            TimeoutException.class,
            () -> new RangeSettler(records).settle(9, Set.of(5, 6), records.deadline()));
    assertTrue(
        e.getMessage().contains("[6]") && e.getMessage().contains("version 9"), e.getMessage());
    long waited = records.clock.get();
    assertTrue(waited >= TIMEOUT.toNanos(), "timed out early: " + waited);
    assertTrue(waited <= TIMEOUT.toNanos() + 3 * LOOK_NANOS, "timed out late: " + waited);
  }

  @Test
  void settle_thatStalls_timesOutATimeoutAfterItsLastProgress() {
    // Ranges 1 and 2 settle at 40 s and 80 s, range 3 never: timed out at 80 + 60 s, not at 60 s.
    Records records = new Records(Map.of(1, 40, 2, 80));
    assertThrows(
        TimeoutException.class,
        () -> new RangeSettler(records).settle(2, Set.of(1, 2, 3), records.deadline()));
    long waited = records.clock.get();
    assertTrue(waited >= Duration.ofSeconds(140).toNanos(), "timed out early: " + waited);
    assertTrue(
        waited <= Duration.ofSeconds(140).toNanos() + 4 * LOOK_NANOS, "timed out late: " + waited);
  }

  @Test
  void stepDeadline_refusesANonPositiveTimeout() {
    assertThrows(IllegalArgumentException.class, () -> new StepDeadline(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new StepDeadline(Duration.ofSeconds(-1)));
  }
}
