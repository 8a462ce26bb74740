package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class DiskSpaceGuardTest {
  private static final long MIB = 1024 * 1024;
  private static final Path DATA = Path.of("/frsm/data");
  private static final Path LOG = Path.of("/frsm/log");

  /** Free space per directory, as a test sets it; a missing directory fails the read. */
  private final Map<Path, DiskSpaceGuard.Space> space = new ConcurrentHashMap<>();

  private final DiskSpaceGuard.Probe probe =
      directory -> {
        DiskSpaceGuard.Space s = space.get(directory);
        if (s == null) {
          throw new IOException("no such file store: " + directory);
        }
        return s;
      };

  private DiskSpaceGuard guard(long minFreeBytes, double minFreeFraction) {
    return new DiskSpaceGuard(
        7,
        List.of(DATA, LOG),
        probe,
        minFreeBytes,
        minFreeFraction,
        System.getLogger(DiskSpaceGuardTest.class.getName()));
  }

  private void free(Path directory, long usableBytes, long totalBytes) {
    space.put(directory, new DiskSpaceGuard.Space(usableBytes, totalBytes));
  }

  @Test
  void check_withSpaceAboveBothMinimums_leavesWritesAlone() {
    free(DATA, 300 * MIB, 1000 * MIB);
    free(LOG, 300 * MIB, 1000 * MIB);
    DiskSpaceGuard guard = guard(256 * MIB, 0.01);
    guard.check();
    assertFalse(guard.low());
    assertNull(guard.refusal());
    assertEquals(0, guard.refusedMutations());
  }

  @Test
  void check_belowTheByteMinimumOnOneDirectory_refusesWritesNamingIt_andCountsThem() {
    free(DATA, 300 * MIB, 1000 * MIB);
    free(LOG, 255 * MIB, 1000 * MIB);
    DiskSpaceGuard guard = guard(256 * MIB, 0.01);
    guard.check();
    assertTrue(guard.low());
    String refusal = guard.refusal();
    assertTrue(refusal.contains("disk space low on " + LOG), refusal);
    assertTrue(refusal.contains("node 7"), refusal);
    guard.refusal();
    assertEquals(2, guard.refusedMutations());
    assertEquals(1, guard.lowSpells());
  }

  @Test
  void check_belowTheShareOfALargeFileSystem_refusesWrites() {
    long total = 100_000 * MIB; // 1% is ~1000 MiB, far above 256 MiB
    free(DATA, 900 * MIB, total);
    free(LOG, 5000 * MIB, total);
    DiskSpaceGuard guard = guard(256 * MIB, 0.01);
    assertEquals(1000 * MIB, guard.minimumFor(total));
    guard.check();
    assertTrue(guard.low());
  }

  @Test
  void check_afterSpaceReturns_clearsByItself() {
    free(DATA, 0, 1000 * MIB);
    free(LOG, 300 * MIB, 1000 * MIB);
    DiskSpaceGuard guard = guard(256 * MIB, 0.01);
    guard.check();
    guard.check();
    assertTrue(guard.low());
    free(DATA, 257 * MIB, 1000 * MIB);
    guard.check();
    assertFalse(guard.low());
    assertNull(guard.refusal());
    free(DATA, 0, 1000 * MIB);
    guard.check();
    assertTrue(guard.low());
    assertEquals(2, guard.lowSpells(), "two spells: a poll that stays low starts none");
  }

  @Test
  void check_whenTheSpaceCannotBeRead_keepsTheGuardWhereItWas() {
    free(DATA, 0, 1000 * MIB);
    free(LOG, 300 * MIB, 1000 * MIB);
    DiskSpaceGuard guard = guard(256 * MIB, 0.01);
    guard.check();
    space.remove(DATA);
    guard.check();
    assertTrue(guard.low(), "an unreadable file store proves no free space");
    free(DATA, 300 * MIB, 1000 * MIB);
    guard.check();
    space.remove(LOG);
    guard.check();
    assertFalse(guard.low(), "nor a full disk");
  }

  @Test
  void check_withBothMinimumsZero_neverRefuses() {
    free(DATA, 0, 1000 * MIB);
    free(LOG, 0, 0);
    DiskSpaceGuard guard = guard(0, 0);
    guard.check();
    assertFalse(guard.low());
  }

  @Test
  void new_withAShareOutsideItsRange_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> guard(0, 1.0));
    assertThrows(IllegalArgumentException.class, () -> guard(-1, 0.01));
    assertThrows(IllegalArgumentException.class, () -> guard(0, Double.NaN));
  }
}
