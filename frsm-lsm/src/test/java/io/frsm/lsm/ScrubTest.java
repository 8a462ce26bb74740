package io.frsm.lsm;

import static io.frsm.lsm.TestCells.key;
import static io.frsm.lsm.TestCells.live;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The background scrub (issue 23 point 3): finds damage before a read, throttled, resumable. */
class ScrubTest {
  private static final Path DATA = Path.of("/node/data");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<LsmEngine> open = new ArrayList<>();

  private LsmConfig.Builder config() {
    return LsmConfig.builder(DATA)
        .commitLogDirectories(List.of(Path.of("/node/cl0")))
        .sstableBlockSizeBytes(512)
        .minorCompactionMinTables(32)
        .scrubEnabled(false);
  }

  private LsmEngine open(LsmConfig config) throws IOException {
    LsmEngine e = LsmEngine.open(config, fs, registry, () -> 1_000_000L);
    open.add(e);
    return e;
  }

  @AfterEach
  void killAll() {
    for (LsmEngine e : open) {
      e.kill();
    }
  }

  /** Three tables of {@code keysPerTable} keys each, values padded to {@code valueBytes}. */
  private static Map<Key, Cell> writeTables(LsmEngine engine, int keysPerTable, int valueBytes)
      throws Exception {
    Map<Key, Cell> expected = new LinkedHashMap<>();
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < keysPerTable; i++) {
        Key k = key(t * keysPerTable + i);
        Cell c = live(k, 1, 0, ("v" + i + "-").repeat(valueBytes / 4), true);
        engine.write(c).get(30, TimeUnit.SECONDS);
        expected.put(k, c);
      }
      engine.flush().get(30, TimeUnit.SECONDS);
    }
    return expected;
  }

  private static void waitUntil(LsmEngineTest.Condition condition, String what) throws Exception {
    LsmEngineTest.waitUntil(condition, what);
  }

  @Test
  void backgroundScrub_quarantinesACorruptBlock_beforeAnyRead_andCountsIt() throws Exception {
    LsmEngine engine = open(config().build());
    Map<Key, Cell> expected = writeTables(engine, 200, 16);
    TableEntry middle = engine.tables().get(1);
    engine.close();
    fs.flipByte(DATA.resolve(middle.fileName()), middle.fileSizeBytes() / 4);

    LsmEngine scrubbing =
        open(
            config()
                .scrubEnabled(true)
                .scrubStartDelay(Duration.ZERO)
                .scrubThroughputBytesPerSecond(64L << 20)
                .build());
    waitUntil(() -> scrubbing.scrubStatus().passesCompleted() >= 1, "a full scrub pass");
    ScrubStatus status = scrubbing.scrubStatus();
    assertTrue(status.enabled());
    assertEquals(1, status.corruptBlocksFound(), status.toString());
    assertTrue(status.tablesScrubbed() >= 3, status.toString());
    assertEquals(1.0, registry.get("frsm.lsm.scrub.corrupt.blocks").counter().count());
    assertTrue(registry.get("frsm.lsm.scrub.bytes").counter().count() > 0);
    List<QuarantinedInterval> found = scrubbing.quarantinedIntervals();
    assertEquals(1, found.size(), found.toString());
    assertEquals(middle.generation(), found.get(0).generation());
    assertFalse(found.get(0).wholeTable());
    // No read touched the block, yet its keys are fenced; every other key is served exactly.
    java.util.Set<Key> middleKeys = new java.util.HashSet<>();
    for (int i = 200; i < 400; i++) {
      middleKeys.add(key(i));
    }
    int fenced = 0;
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      if (found.get(0).tokens().contains(e.getKey().token()) && middleKeys.contains(e.getKey())) {
        assertThrows(QuarantinedRangeException.class, () -> scrubbing.get(e.getKey()));
        fenced++;
      } else if (found.get(0).tokens().contains(e.getKey().token())) {
        // Another table's key in the fenced span: served unless the damaged table's bloom filter
        // has a false positive for it; never a wrong value.
        try {
          assertEquals(e.getValue(), scrubbing.get(e.getKey()));
        } catch (QuarantinedRangeException bloomFalsePositive) {
          // fenced: fine
        }
      } else {
        assertEquals(e.getValue(), scrubbing.get(e.getKey()));
      }
    }
    assertTrue(fenced > 0);
  }

  @Test
  void scrub_isThrottled_toItsBytesPerSecond() throws Exception {
    LsmEngine engine = open(config().build());
    writeTables(engine, 400, 64);
    engine.close();
    long rate = 64 * 1024;
    long start = System.nanoTime();
    LsmEngine scrubbing =
        open(
            config()
                .scrubEnabled(true)
                .scrubStartDelay(Duration.ZERO)
                .scrubThroughputBytesPerSecond(rate)
                .build());
    waitUntil(() -> scrubbing.scrubStatus().bytesScrubbed() >= 2 * rate, "two seconds' worth");
    double seconds = (System.nanoTime() - start) / 1e9;
    // The bucket starts empty and holds at most one second: 2 s of budget cannot go by in less.
    assertTrue(seconds >= 1.5, "scrubbed " + 2 * rate + " bytes in " + seconds + " s");
  }

  @Test
  void scrubStep_verifiesARunOfBlocks_sizedByTheThrottle() throws Exception {
    LsmEngine engine = open(config().build());
    writeTables(engine, 200, 16);
    engine.close();
    // At the default 4 MiB/s a step may cover 256 KiB: the whole first table (a few KiB) at once,
    // so the throttle wakes the scrub a few times a second, not once per block.
    LsmEngine fast = open(config().build());
    assertTrue(fast.scrubStepNow());
    assertEquals(1, fast.scrubStatus().tablesScrubbed(), fast.scrubStatus().toString());
    fast.close();
    // At 8 KiB/s a step is at most 512 bytes, and every block but a table's last is at least the
    // 512-byte block size: one block per step.
    fs.delete(DATA.resolve(ScrubCursor.FILE_NAME));
    LsmEngine slow = open(config().scrubThroughputBytesPerSecond(8 * 1024).build());
    assertTrue(slow.scrubStepNow());
    assertEquals(1, slow.scrubStatus().nextBlock(), slow.scrubStatus().toString());
    assertTrue(slow.scrubStepNow());
    assertEquals(2, slow.scrubStatus().nextBlock(), slow.scrubStatus().toString());
  }

  @Test
  void scrubCursor_survivesARestart_andTheNextPassResumesAfterIt() throws Exception {
    LsmEngine engine = open(config().build());
    writeTables(engine, 200, 16);
    long oldest = engine.tables().stream().mapToLong(TableEntry::generation).min().orElseThrow();
    while (engine.scrubStatus().tablesScrubbed() == 0) {
      assertTrue(engine.scrubStepNow());
    }
    ScrubStatus firstTableDone = engine.scrubStatus();
    assertEquals(oldest, firstTableDone.generation());
    engine.kill();
    LsmEngine reopened = open(config().build());
    ScrubStatus resumed = reopened.scrubStatus();
    assertEquals(firstTableDone.generation(), resumed.generation());
    assertEquals(firstTableDone.nextBlock(), resumed.nextBlock());
    assertEquals(0, resumed.bytesScrubbed(), "counts are per run; the position persists");
    // The next step reads the second table, not the first again.
    assertTrue(reopened.scrubStepNow());
    assertNotEquals(oldest, reopened.scrubStatus().generation());
    reopened.scrubPassNow();
    assertEquals(1, reopened.scrubStatus().passesCompleted());
    assertEquals(2, reopened.scrubStatus().tablesScrubbed(), "only the two tables left");
  }

  @Test
  void damagedScrubCursor_restartsThePass_neverStopsTheEngine() throws Exception {
    LsmEngine engine = open(config().build());
    writeTables(engine, 50, 16);
    engine.scrubPassNow();
    engine.close();
    Path cursor = DATA.resolve(ScrubCursor.FILE_NAME);
    fs.flipByte(cursor, 7);
    LsmEngine reopened = open(config().build());
    assertEquals(ScrubCursor.START.passesCompleted(), reopened.scrubStatus().passesCompleted());
    reopened.scrubPassNow();
    assertEquals(3, reopened.scrubStatus().tablesScrubbed());
  }

  @Test
  void scrubCursor_encodingIsFrozen_andHostileBytesAreRefused() throws Exception {
    ScrubCursor c = new ScrubCursor(7, 3, 2);
    byte[] bytes = c.encode();
    assertEquals(ScrubCursor.BYTES, bytes.length);
    assertEquals(
        "46525343" + "0001" + "0000000000000007" + "00000003" + "0000000000000002",
        java.util.HexFormat.of().formatHex(bytes, 0, ScrubCursor.BYTES - 4));
    assertEquals(c, ScrubCursor.decode(DATA, bytes));
    ByteBuffer.wrap(bytes).putInt(14, -1); // a negative block with a valid checksum
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 0, ScrubCursor.BYTES - 4);
    ByteBuffer.wrap(bytes).putInt(ScrubCursor.BYTES - 4, (int) crc.getValue());
    assertThrows(CorruptionException.class, () -> ScrubCursor.decode(DATA, bytes));
    assertThrows(CorruptionException.class, () -> ScrubCursor.decode(DATA, new byte[3]));
  }
}
