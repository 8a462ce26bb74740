package io.frsm.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LsmConfigTest {

  @Test
  void defaults_matchThePapersTable3() {
    LsmConfig c = LsmConfig.builder(Path.of("/d")).build();
    assertEquals(0.9, c.flushLargestMemtablesHeapFraction());
    assertEquals(Duration.ofMinutes(30), c.memtableLifetime());
    assertEquals(20 * LsmConfig.MIB, c.minFlushLargestMemtableBytes());
    assertEquals(1024 * LsmConfig.MIB, c.maxCommitLogSizeOnDiskBytes());
    assertEquals(64 * LsmConfig.MIB, c.commitLogRotationThresholdBytes());
    assertEquals(
        GroupCommitWindow.AUTO, c.commitLogGroupCommitWindow(), "not in the paper: adaptive");
    assertTrue(c.commitLogPreallocateSegments(), "not in the paper: on, as PostgreSQL's WAL");
    assertEquals(2, c.numberOfCompactionThreads());
    assertEquals(64 * LsmConfig.MIB, c.compactionThroughputLimitBytesPerSecond());
    assertEquals(Duration.ofHours(24), c.tombstoneGracePeriod());
    assertEquals(64 * 1024, c.maxKeySizeBytes());
    assertEquals(1024 * 1024, c.maxValueSizeBytes());
  }

  @Test
  void tunablesFrom_copiesEveryTunableButNotTheDirectories() {
    LsmConfig source =
        LsmConfig.builder(Path.of("/a"))
            .memtableLifetime(Duration.ofMinutes(7))
            .maxFrozenMemtables(9)
            .bloomBitsPerKey(12)
            .skipCorruptCommitLogTail(true)
            .commitLogGroupCommitWindow(Duration.ofMillis(3))
            .commitLogPreallocateSegments(false)
            .build();
    LsmConfig copy = LsmConfig.builder(Path.of("/b")).tunablesFrom(source).build();
    assertEquals(Path.of("/b"), copy.dataDirectory());
    // Every tunable equal: compare the descriptions with the directories cut out.
    assertEquals(source.toString().replace("/a", "/b"), copy.toString());
    assertEquals(9, copy.maxFrozenMemtables());
    assertEquals(12, copy.bloomBitsPerKey());
    assertTrue(copy.skipCorruptCommitLogTail());
    assertEquals(GroupCommitWindow.fixed(Duration.ofMillis(3)), copy.commitLogGroupCommitWindow());
    assertFalse(copy.commitLogPreallocateSegments());
  }

  @Test
  void invalidValue_isRejectedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LsmConfig.builder(Path.of("/d")).numberOfCompactionThreads(0).build());
    assertTrue(e.getMessage().contains("numberOfCompactionThreads"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                LsmConfig.builder(Path.of("/d"))
                    .commitLogRotationThresholdBytes(100)
                    .maxCommitLogSizeOnDiskBytes(50)
                    .build());
    assertTrue(e.getMessage().contains("maxCommitLogSizeOnDiskBytes"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> LsmConfig.builder(Path.of("/d")).flushLargestMemtablesHeapFraction(1.5).build());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                LsmConfig.builder(Path.of("/d"))
                    .commitLogGroupCommitWindow(Duration.ofMillis(101))
                    .build());
    assertTrue(e.getMessage().contains("commitLogGroupCommitWindow"), e.getMessage());
  }
}
