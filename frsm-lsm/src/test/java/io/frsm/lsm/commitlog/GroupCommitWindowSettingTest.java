package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The window's length as a function of the setting and the stripe's recent sync time. */
class GroupCommitWindowSettingTest {
  private static final long MICROS = 1_000;
  private static final long NO_SYNC_YET = -1;

  @Test
  void auto_isTwiceTheRecentSyncTime_atMostOneMillisecond() {
    GroupCommitWindow auto = GroupCommitWindow.AUTO;
    assertEquals(0, auto.nanos(NO_SYNC_YET), "nothing measured yet: no window");
    assertEquals(0, auto.nanos(0));
    assertEquals(40 * MICROS, auto.nanos(20 * MICROS), "a fast device: a short window");
    assertEquals(600 * MICROS, auto.nanos(300 * MICROS), "a slow virtual disk");
    assertEquals(1_000 * MICROS, auto.nanos(500 * MICROS));
    assertEquals(1_000 * MICROS, auto.nanos(40_000 * MICROS), "never above the limit");
  }

  @Test
  void aFixedWindow_ignoresTheSyncTime_andZeroIsOff() {
    GroupCommitWindow fixed = GroupCommitWindow.fixed(Duration.ofMillis(3));
    assertEquals(3_000 * MICROS, fixed.nanos(NO_SYNC_YET));
    assertEquals(3_000 * MICROS, fixed.nanos(10 * MICROS));
    assertSame(GroupCommitWindow.OFF, GroupCommitWindow.fixed(Duration.ZERO));
    assertTrue(GroupCommitWindow.OFF.isOff());
    assertEquals(0, GroupCommitWindow.OFF.nanos(500 * MICROS));
  }

  @Test
  void outOfRange_isRefusedNamingTheSetting() {
    for (Duration bad :
        new Duration[] {Duration.ofNanos(-1), Duration.ofMillis(100).plusNanos(1)}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> GroupCommitWindow.fixed(bad));
      assertTrue(e.getMessage().contains("groupCommitWindow"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> new GroupCommitWindow(Duration.ZERO, true));
  }

  @Test
  void describesItselfAsConfigured() {
    assertEquals("auto", GroupCommitWindow.AUTO.toString());
    assertEquals("off", GroupCommitWindow.OFF.toString());
    assertEquals("1ms", GroupCommitWindow.fixed(Duration.ofMillis(1)).toString());
    assertEquals("500us", GroupCommitWindow.fixed(Duration.ofNanos(500_000)).toString());
    assertEquals(
        "adaptive up to 5ms", new GroupCommitWindow(Duration.ofMillis(5), true).toString());
  }
}
