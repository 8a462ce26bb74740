package io.frsm.lsm;

import static io.frsm.lsm.TestCells.key;
import static io.frsm.lsm.TestCells.live;
import static io.frsm.lsm.TestCells.promise;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 23 point 3: a corrupt data block quarantines that block's token span, not the table; the
 * engine opens whatever byte of whatever table was damaged; no read ever returns a wrong value.
 */
class BlockQuarantineTest {
  private static final Path DATA = Path.of("/node/data");
  private static final int KEYS = 400;

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final List<LsmEngine> open = new ArrayList<>();

  private LsmEngine open() throws IOException {
    LsmConfig config =
        LsmConfig.builder(DATA)
            .commitLogDirectories(List.of(Path.of("/node/cl0")))
            .sstableBlockSizeBytes(512)
            .minorCompactionMinTables(32)
            .blockCacheSizeBytes(1 << 20)
            .build();
    LsmEngine e = LsmEngine.open(config, fs, new SimpleMeterRegistry(), () -> 1_000_000L);
    open.add(e);
    return e;
  }

  @AfterEach
  void killAll() {
    for (LsmEngine e : open) {
      e.kill();
    }
  }

  /** Two tables: every key with a value and a promise, a third of them overwritten later. */
  private Map<Key, Cell> writeTwoTables(LsmEngine engine, Random random) throws Exception {
    Map<Key, Cell> expected = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      Key k = key(i);
      for (Cell c : List.of(live(k, 1, 0, "first-" + i, true), promise(k, 3))) {
        engine.write(c).get(30, TimeUnit.SECONDS);
        expected.merge(k, c, CellMerge::merge);
      }
    }
    engine.flush().get(30, TimeUnit.SECONDS);
    for (int i = 0; i < KEYS; i++) {
      if (random.nextInt(3) == 0) {
        Key k = key(i);
        Cell c = live(k, 1, 1, "second-" + i, true);
        engine.write(c).get(30, TimeUnit.SECONDS);
        expected.merge(k, c, CellMerge::merge);
      }
    }
    engine.flush().get(30, TimeUnit.SECONDS);
    return expected;
  }

  /**
   * Reads every key: a value read must be the exact expected one; a failure must be the typed
   * corruption or quarantine error. Returns the keys that failed.
   */
  private static Set<Key> readAll(LsmEngine engine, Map<Key, Cell> expected) {
    Set<Key> failed = new HashSet<>();
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      try {
        assertEquals(e.getValue(), engine.get(e.getKey()), "a wrong value for " + e.getKey());
      } catch (QuarantinedRangeException | CorruptionException typed) {
        failed.add(e.getKey());
      } catch (IOException other) {
        fail("untyped read failure for " + e.getKey(), other);
      }
    }
    return failed;
  }

  private static boolean quarantined(LsmEngine engine, Key k) {
    return engine.quarantinedIntervals().stream().anyMatch(q -> q.tokens().contains(k.token()));
  }

  @Test
  void randomByteOfRandomTable_neverStopsTheEngine_neverServesAWrongValue() throws Exception {
    int blockGrain = 0;
    for (int seed = 1; seed <= 40; seed++) {
      String where = "seed " + seed;
      Random random = new Random(seed);
      LsmEngine engine = open();
      Map<Key, Cell> expected = writeTwoTables(engine, random);
      List<TableEntry> tables = engine.tables();
      engine.close();
      TableEntry victim = tables.get(random.nextInt(tables.size()));
      long offset = (long) (random.nextDouble() * victim.fileSizeBytes());
      fs.flipByte(DATA.resolve(victim.fileName()), offset);

      LsmEngine reopened = open(); // must not throw, whatever byte was hit
      Set<Key> firstPass = readAll(reopened, expected);
      Set<Key> secondPass = readAll(reopened, expected);
      for (Key k : firstPass) {
        assertTrue(quarantined(reopened, k), where + ": " + k + " failed outside a quarantine");
      }
      for (Key k : secondPass) {
        assertTrue(quarantined(reopened, k), where + ": " + k + " failed outside a quarantine");
        assertThrows(QuarantinedRangeException.class, () -> reopened.get(k), where);
      }
      List<QuarantinedInterval> found = reopened.quarantinedIntervals();
      if (!found.isEmpty() && !found.get(0).wholeTable()) {
        blockGrain++;
        assertEquals(1, found.size(), where + ": one flipped byte, one damaged block " + found);
        assertTrue(secondPass.size() < KEYS / 4, where + ": " + secondPass.size() + " keys lost");
      }
      reopened.close();
      LsmEngine again = open(); // the fence survives a restart
      assertEquals(found, again.quarantinedIntervals(), where);
      Set<Key> afterRestart = readAll(again, expected);
      assertEquals(secondPass, afterRestart, where);
      again.close();
      fs.delete(DATA.resolve(victim.fileName()));
      for (Path p : fs.list(DATA)) {
        fs.delete(p);
      }
    }
    assertTrue(blockGrain >= 20, "most random bytes fall in data blocks: " + blockGrain);
  }

  @Test
  void corruptBlock_fencesItsSpanOnly_scansAroundItWork_releaseKeepsTheReadableBlocks()
      throws Exception {
    LsmEngine engine = open();
    Map<Key, Cell> expected = writeTwoTables(engine, new Random(7));
    TableEntry first = // the oldest table holds every key
        engine.tables().stream().min(Comparator.comparingLong(TableEntry::generation)).get();
    engine.close();
    fs.flipByte(DATA.resolve(first.fileName()), first.fileSizeBytes() / 3);
    LsmEngine reopened = open();
    assertFalse(readAll(reopened, expected).isEmpty());
    // Read again once the block is fenced: keys read before the damage was found were served
    // from healthy blocks, correctly, but the fence's span starts at the previous block's last
    // token (keys are ordered by token first), so that key is fenced too.
    Set<Key> lost = readAll(reopened, expected);
    QuarantinedInterval q = reopened.quarantinedIntervals().get(0);
    assertFalse(q.wholeTable());
    assertEquals(first.generation(), q.generation());
    // A scan that overlaps the fence fails; scans on either side of it work and are exact.
    assertThrows(
        QuarantinedRangeException.class,
        () -> reopened.scan(q.tokens().fromToken(), q.tokens().toToken()));
    int scanned = 0;
    if (q.tokens().fromToken() > Long.MIN_VALUE) {
      scanned += scanExact(reopened, Long.MIN_VALUE, q.tokens().fromToken() - 1, expected);
    }
    if (q.tokens().toToken() < Long.MAX_VALUE) {
      scanned += scanExact(reopened, q.tokens().toToken() + 1, Long.MAX_VALUE, expected);
    }
    // Scans see every key outside the fence; gets also serve the fenced span's keys that the
    // damaged table's bloom filter rules out (they were never in the damaged block).
    long outside = expected.keySet().stream().filter(k -> !q.tokens().contains(k.token())).count();
    assertEquals(outside, scanned);
    for (Key k : lost) {
      assertTrue(q.tokens().contains(k.token()), k.toString());
    }

    // Release (after a repair): the damaged block's cells are gone, every other one is kept.
    reopened.releaseQuarantine(q.generation());
    assertTrue(reopened.quarantinedIntervals().isEmpty());
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      Cell read = reopened.get(e.getKey());
      if (!lost.contains(e.getKey())) {
        assertEquals(e.getValue(), read);
      } else {
        // A fenced key of a healthy neighbouring block is kept whole; of the damaged block only
        // the newer table's cell (if the key was overwritten) is left.
        assertTrue(
            e.getValue().equals(read) || read == null || read.accepted().timestamp() == 1,
            String.valueOf(read));
      }
    }
  }

  private static int scanExact(LsmEngine engine, long from, long to, Map<Key, Cell> expected)
      throws IOException {
    int n = 0;
    try (CellIterator it = engine.scan(from, to)) {
      while (it.hasNext()) {
        Cell c = it.next();
        assertEquals(expected.get(c.key()), c);
        n++;
      }
    }
    return n;
  }

  @Test
  void corruptFooter_quarantinesTheWholeTable_atOpen() throws Exception {
    LsmEngine engine = open();
    Map<Key, Cell> expected = writeTwoTables(engine, new Random(3));
    TableEntry newest = engine.tables().get(0);
    engine.close();
    fs.flipByte(DATA.resolve(newest.fileName()), newest.fileSizeBytes() - 5);
    LsmEngine reopened = open();
    QuarantinedInterval q = reopened.quarantinedIntervals().get(0);
    assertTrue(q.wholeTable());
    assertEquals(newest.tokenSpan(), q.tokens());
    readAll(reopened, expected);
    reopened.releaseQuarantine(newest.generation());
    assertNull(reopened.get(key("absent")));
  }

  @Test
  void aSegregatedTableWithAQuarantinedBlock_isNeverHandedOffInPart() throws Exception {
    LsmEngine engine = open();
    engine.setSegregatedFlushes(true);
    Map<Key, Cell> expected = writeTwoTables(engine, new Random(11));
    assertEquals(2, engine.segregatedTables().size());
    TableEntry oldest =
        engine.tables().stream().min(Comparator.comparingLong(TableEntry::generation)).get();
    engine.close();
    fs.flipByte(DATA.resolve(oldest.fileName()), oldest.fileSizeBytes() / 3);
    LsmEngine reopened = open();
    readAll(reopened, expected); // finds the damaged block
    assertThrows(QuarantinedRangeException.class, reopened::segregatedTables);
  }
}
