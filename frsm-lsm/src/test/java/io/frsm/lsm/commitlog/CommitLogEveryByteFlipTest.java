package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Exhaustive over one segment: every byte of it — header, record headers, payloads, checksums —
 * flipped in turn, then the log replayed. A flip never looks like a write cut short (it changes no
 * length and leaves no zeros), so whatever the byte, the reader refuses the segment as corrupt,
 * naming its file — also in the segment's last record, which may have been acknowledged — and what
 * it handed out before is a prefix of what was written. With a preallocated tail of zeros, a flip
 * in the tail may be taken for the end of the written part or for damage, never at the cost of a
 * record.
 */
class CommitLogEveryByteFlipTest {
  private static final Path DIR = Path.of("/log/stripe0");

  @Test
  void everyByteFlip_ofAWrittenByte_isCorruption() throws Exception {
    everyByteFlip(0);
  }

  @Test
  void everyByteFlip_withAPreallocatedTail_isCorruptionInTheRecords_andNeverCostsARecord()
      throws Exception {
    everyByteFlip(1024);
  }

  private void everyByteFlip(int zeroTail) throws Exception {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      cells.add(TestCells.cell(i));
    }
    long written = SegmentFiles.recordOffset(cells, cells.size());
    long segmentBytes = written + zeroTail;
    int corrupt = 0;
    int torn = 0;
    for (long at = 0; at < segmentBytes; at++) {
      FaultyFileSystem fs = new FaultyFileSystem();
      Path file = SegmentFiles.write(fs, DIR, 1, cells, new byte[zeroTail]);
      assertEquals(segmentBytes, fs.size(file));
      fs.flipByte(file, at);
      List<Cell> replayed = new ArrayList<>();
      CommitLogConfig config = CommitLogConfig.builder(List.of(DIR)).build();
      try {
        CommitLog.open(fs, config, new SimpleMeterRegistry(), replayed::add).close();
        torn++;
        assertTrue(at >= written, "byte " + at + ": a written byte's flip was not refused");
        assertEquals(cells, replayed, "byte " + at + ": a flip in the tail cost a record");
      } catch (CorruptionException e) {
        corrupt++;
        assertEquals(file, e.file(), "byte " + at + ": " + e.getMessage());
      } catch (RuntimeException | java.io.IOException | AssertionError e) {
        throw new AssertionError("byte " + at + " of " + segmentBytes + ": " + e, e);
      }
      assertEquals(
          cells.subList(0, replayed.size()),
          replayed,
          "byte " + at + ": replay handed out something that was not written");
    }
    assertTrue(corrupt >= written, "every written byte's flip refused: " + corrupt);
  }
}
