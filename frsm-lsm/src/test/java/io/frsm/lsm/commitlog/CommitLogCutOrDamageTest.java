package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * The segment's last record, damaged or cut short (docs/formats/commitlog.md "Replay"): a write cut
 * short by a crash leaves the file ending inside the record, or — in a preallocated segment — zeros
 * from a sector boundary inside the record on; replay keeps what came before. Bytes written whole
 * and damaged since are refused as corruption even when nothing intact follows them, because the
 * record may have been acknowledged: a promise or an accept the replica must not forget.
 */
class CommitLogCutOrDamageTest {
  private static final Path DIR = Path.of("/log/stripe0");
  private static final int PREALLOCATED_TAIL = 4096;

  private final FaultyFileSystem fs = new FaultyFileSystem();

  /** Four small records, then one that spans several sectors. */
  private static List<Cell> cells() {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      cells.add(TestCells.cell(i));
    }
    cells.add(TestCells.cell(99, 1500));
    return cells;
  }

  private static long lastRecordStart(List<Cell> cells) {
    return SegmentFiles.recordOffset(cells, cells.size() - 1);
  }

  private static long lastRecordEnd(List<Cell> cells) {
    return SegmentFiles.recordOffset(cells, cells.size());
  }

  private static CommitLogConfig config() {
    return CommitLogConfig.builder(List.of(DIR)).build();
  }

  @Test
  void zerosFromASectorBoundaryInsideTheLastRecord_areACutShortWrite() throws Exception {
    List<Cell> cells = cells();
    byte[] segment = SegmentFiles.bytes(1, cells, new byte[PREALLOCATED_TAIL]);
    long cut = (lastRecordStart(cells) / 512 + 1) * 512;
    assertTrue(cut > lastRecordStart(cells) + 8 && cut < lastRecordEnd(cells), "cut " + cut);
    Arrays.fill(segment, (int) cut, (int) lastRecordEnd(cells), (byte) 0);
    SegmentFiles.writeBytes(fs, DIR, 1, segment);
    try (LogCapture log = new LogCapture(CommitLogReader.class)) {
      assertEquals(cells.subList(0, 4), SegmentFiles.replay(fs, config()));
      List<String> warnings = log.messages(Level.WARNING);
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("torn write"), warnings.get(0));
    }
  }

  @Test
  void zerosStartingOffASectorBoundary_areDamage() throws Exception {
    List<Cell> cells = cells();
    byte[] segment = SegmentFiles.bytes(1, cells, new byte[PREALLOCATED_TAIL]);
    long end = lastRecordEnd(cells);
    long from = Math.max(end - 40, lastRecordStart(cells) + 8);
    assertTrue((end - 1) / 512 == from / 512 || end % 512 == 0, "no sector boundary in between");
    Arrays.fill(segment, (int) from, (int) end, (byte) 0);
    Path file = SegmentFiles.writeBytes(fs, DIR, 1, segment);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, config()));
    assertEquals(file, e.file());
    assertEquals(lastRecordStart(cells), e.offset());
    assertTrue(e.getMessage().contains("sector boundary"), e.getMessage());
  }

  @Test
  void flippedByteInTheLastRecord_isDamage_withAndWithoutAPreallocatedTail() throws Exception {
    for (int tail : new int[] {0, PREALLOCATED_TAIL}) {
      for (long into : new long[] {4, 9, 200, 1000, 1507}) {
        FaultyFileSystem disk = new FaultyFileSystem();
        List<Cell> cells = cells();
        Path file = SegmentFiles.write(disk, DIR, 1, cells, new byte[tail]);
        long at = lastRecordStart(cells) + into;
        assertTrue(at < lastRecordEnd(cells));
        disk.flipByte(file, at);
        CorruptionException e =
            assertThrows(
                CorruptionException.class,
                () -> SegmentFiles.replay(disk, config()),
                "tail " + tail + ", byte " + into + " of the last record");
        assertEquals(lastRecordStart(cells), e.offset());
      }
    }
  }

  @Test
  void lengthOfTheLastRecordDamagedUpwards_isDamage_notACut() throws Exception {
    for (int tail : new int[] {0, PREALLOCATED_TAIL}) {
      List<Cell> cells = cells();
      byte[] segment = SegmentFiles.bytes(1, cells, new byte[tail]);
      int start = (int) lastRecordStart(cells);
      int length = ByteBuffer.wrap(segment).getInt(start);
      // Into the zeros of the tail, or past the end of a file without one.
      ByteBuffer.wrap(segment).putInt(start, length | 0x800);
      FaultyFileSystem disk = new FaultyFileSystem();
      SegmentFiles.writeBytes(disk, DIR, 1, segment);
      CorruptionException e =
          assertThrows(
              CorruptionException.class, () -> SegmentFiles.replay(disk, config()), "tail " + tail);
      assertTrue(e.getMessage().contains("length field is damaged"), e.getMessage());
    }
  }

  @Test
  void fileEndingInsideTheLastRecord_isACutShortWrite() throws Exception {
    List<Cell> cells = cells();
    byte[] whole = SegmentFiles.bytes(1, cells, new byte[0]);
    byte[] cut = Arrays.copyOf(whole, (int) lastRecordStart(cells) + 700);
    SegmentFiles.writeBytes(fs, DIR, 1, cut);
    assertEquals(cells.subList(0, 4), SegmentFiles.replay(fs, config()));
  }

  @Test
  void strayByteInThePreallocatedTail_neverCostsARecord() throws Exception {
    // Either outcome is safe: damage (the replica is repaired though nothing was lost) or the end
    // of the written part. What must not happen is a record lost or invented.
    List<Cell> cells = cells();
    long end = lastRecordEnd(cells);
    for (long into : new long[] {0, 3, 7, 8, 100, 600, PREALLOCATED_TAIL - 1}) {
      FaultyFileSystem disk = new FaultyFileSystem();
      Path file = SegmentFiles.write(disk, DIR, 1, cells, new byte[PREALLOCATED_TAIL]);
      disk.flipByte(file, end + into);
      try {
        assertEquals(cells, SegmentFiles.replay(disk, config()), "stray byte at +" + into);
      } catch (CorruptionException e) {
        assertEquals(end, e.offset(), "stray byte at +" + into);
      }
    }
  }
}
