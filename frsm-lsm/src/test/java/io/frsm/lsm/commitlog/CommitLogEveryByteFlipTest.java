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
 * flipped in turn, then the log replayed. Whatever the byte, the reader either refuses the segment
 * as corrupt (naming its file) or treats the damage as a torn tail; in both cases what it handed
 * out is a prefix of what was written — never a record that was not written, never another
 * exception.
 */
class CommitLogEveryByteFlipTest {
  private static final Path DIR = Path.of("/log/stripe0");

  @Test
  void everyByteFlip_isCorruptionOrATornTail_neverGarbage() throws Exception {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      cells.add(TestCells.cell(i));
    }
    long segmentBytes = SegmentFiles.recordOffset(cells, cells.size());
    int corrupt = 0;
    int torn = 0;
    for (long at = 0; at < segmentBytes; at++) {
      FaultyFileSystem fs = new FaultyFileSystem();
      Path file = SegmentFiles.write(fs, DIR, 1, cells, new byte[0]);
      assertEquals(segmentBytes, fs.size(file));
      fs.flipByte(file, at);
      List<Cell> replayed = new ArrayList<>();
      CommitLogConfig config = CommitLogConfig.builder(List.of(DIR)).build();
      try {
        CommitLog.open(fs, config, new SimpleMeterRegistry(), replayed::add).close();
        torn++;
        assertTrue(
            replayed.size() < cells.size(),
            "byte " + at + ": a damaged segment replayed in full: " + replayed.size());
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
    assertTrue(
        corrupt > 0 && torn > 0, "both outcomes seen: corrupt " + corrupt + ", torn " + torn);
  }
}
