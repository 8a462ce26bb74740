package io.frsm.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals(2, c.numberOfCompactionThreads());
    assertEquals(64 * LsmConfig.MIB, c.compactionThroughputLimitBytesPerSecond());
    assertEquals(Duration.ofHours(24), c.tombstoneGracePeriod());
    assertEquals(64 * 1024, c.maxKeySizeBytes());
    assertEquals(1024 * 1024, c.maxValueSizeBytes());
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
  }
}
