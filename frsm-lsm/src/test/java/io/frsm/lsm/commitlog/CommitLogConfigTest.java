package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitLogConfigTest {
  private static final Path A = Path.of("/a");
  private static final Path B = Path.of("/b");

  @Test
  void defaults_followThePapersTable3() {
    CommitLogConfig c = CommitLogConfig.builder(List.of(A, B)).build();
    assertEquals(List.of(A, B), c.stripeDirectories());
    assertEquals(64L << 20, c.segmentSizeBytes());
    assertEquals(1L << 30, c.maxTotalSizeBytes());
    assertEquals(1 << 20, c.maxBatchBytes());
    assertFalse(c.skipCorruptSegmentTail());
    assertEquals(GroupCommitWindow.AUTO, c.groupCommitWindow(), "follows the stripe's syncs");
  }

  @Test
  void groupCommitWindow_isBetweenZeroAnd100Milliseconds() {
    assertEquals(
        GroupCommitWindow.fixed(Duration.ofMillis(100)),
        CommitLogConfig.builder(List.of(A))
            .groupCommitWindow(Duration.ofMillis(100))
            .build()
            .groupCommitWindow());
    assertEquals(
        GroupCommitWindow.OFF,
        CommitLogConfig.builder(List.of(A))
            .groupCommitWindow(Duration.ZERO)
            .build()
            .groupCommitWindow());
    for (Duration bad : List.of(Duration.ofNanos(-1), Duration.ofMillis(100).plusNanos(1))) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> CommitLogConfig.builder(List.of(A)).groupCommitWindow(bad).build());
      assertTrue(e.getMessage().contains("groupCommitWindow"), e.getMessage());
    }
  }

  @Test
  void invalidSettings_areRejectedAtBuild() {
    assertThrows(IllegalArgumentException.class, () -> CommitLogConfig.builder(List.of()).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> CommitLogConfig.builder(List.of(A, Path.of("/x/../a"))).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> CommitLogConfig.builder(List.of(A)).segmentSizeBytes(100).build());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            CommitLogConfig.builder(List.of(A))
                .segmentSizeBytes(1 << 20)
                .maxTotalSizeBytes(1 << 19)
                .build());
    assertThrows(
        IllegalArgumentException.class,
        () -> CommitLogConfig.builder(List.of(A)).maxBatchBytes(10).build());
  }

  @Test
  void checkpoint_isAValueWithDefensiveCopies() {
    long[] ids = {3, 4};
    CommitLogCheckpoint c = new CommitLogCheckpoint(ids);
    ids[0] = 99;
    assertEquals(3, c.segmentId(0));
    c.segmentIdPerStripe()[1] = 99;
    assertArrayEquals(new long[] {3, 4}, c.segmentIdPerStripe());
    assertEquals(new CommitLogCheckpoint(new long[] {3, 4}), c);
    assertEquals(new CommitLogCheckpoint(new long[] {3, 4}).hashCode(), c.hashCode());
    assertNotEquals(new CommitLogCheckpoint(new long[] {3, 5}), c);
    assertEquals("CommitLogCheckpoint[3, 4]", c.toString());
    assertThrows(IllegalArgumentException.class, () -> new CommitLogCheckpoint(new long[0]));
    assertThrows(IllegalArgumentException.class, () -> new CommitLogCheckpoint(new long[] {-1}));
  }
}
