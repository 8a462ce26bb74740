package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitLogFormatTest {
  private static final Path DIR = Path.of("/log/stripe0");

  /** The worked example of docs/formats/commitlog.md, byte for byte. */
  static final String WORKED_EXAMPLE_HEX =
      // segment header
      "4652434c" // magic "FRCL"
          + "00000001" // format version 1
          + "00000000" // stripe index 0
          + "0000000000000001" // segment id 1
          + "d022658f" // CRC32C of the 20 bytes above
          // one record
          + "0000001c" // payload length 28
          + "c8bd099f" // CRC32C over the 4 length bytes and the payload
          + "01" // cell flags: promised present
          + "02"
          + "6b31" // key "k1"
          + "0000000000000005"
          + "00000001"
          + "00000002" // promised ballot (5, 1, 2)
          + "0000000000000009"; // writeTimeMs 9

  @Test
  void segmentBytes_areFrozen() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR)).build();
    try (CommitLog log = CommitLog.open(fs, config, new SimpleMeterRegistry(), c -> {})) {
      log.append(Cell.promise(Key.of(new byte[] {'k', '1'}), new Ballot(5, 1, 2), 9)).get();
    }
    Path segment = DIR.resolve("commitlog-00000000000000000001.log");
    try (ReadableFile file = fs.openRead(segment)) {
      ByteBuffer bytes = ByteBuffer.allocate((int) file.size());
      file.readFully(bytes, 0);
      assertEquals(WORKED_EXAMPLE_HEX, HexFormat.of().formatHex(bytes.array()));
    }
  }

  @Test
  void segmentFileName_encodesZeroPaddedId() {
    assertEquals("commitlog-00000000000000000042.log", CommitLogSegment.fileName(42));
    assertEquals(42, CommitLogSegment.parseId(Path.of("/x/commitlog-00000000000000000042.log")));
    assertEquals(-1, CommitLogSegment.parseId(Path.of("/x/commitlog-42.log")));
    assertEquals(-1, CommitLogSegment.parseId(Path.of("/x/commitlog-0000000000000000004x.log")));
    assertEquals(-1, CommitLogSegment.parseId(Path.of("/x/sstable-00000000000000000042.db")));
    assertEquals(
        Long.MAX_VALUE,
        CommitLogSegment.parseId(Path.of("/x/" + CommitLogSegment.fileName(Long.MAX_VALUE))));
  }

  @Test
  void header_roundTrips() throws Exception {
    ByteBuffer buf = ByteBuffer.allocate(SegmentHeader.BYTES);
    new SegmentHeader(3, 77).encode(buf);
    buf.flip();
    assertEquals(new SegmentHeader(3, 77), SegmentHeader.decode(buf, DIR));
  }

  @Test
  void headerWithAnyFlippedByte_isCorruption() {
    ByteBuffer good = ByteBuffer.allocate(SegmentHeader.BYTES);
    new SegmentHeader(0, 1).encode(good);
    for (int i = 0; i < SegmentHeader.BYTES; i++) {
      byte[] bytes = good.array().clone();
      bytes[i] ^= (byte) 0xff;
      assertThrows(
          CorruptionException.class,
          () -> SegmentHeader.decode(ByteBuffer.wrap(bytes), DIR),
          "flipped byte " + i);
    }
  }

  @Test
  void unknownFormatVersion_isCorruptionNamingTheVersion() {
    ByteBuffer buf = ByteBuffer.allocate(SegmentHeader.BYTES);
    buf.putInt(SegmentHeader.MAGIC).putInt(2).putInt(0).putLong(1);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(buf.array(), 0, 20);
    buf.putInt((int) crc.getValue());
    buf.flip();
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentHeader.decode(buf, DIR));
    assertTrue(e.getMessage().contains("version 2"), e.getMessage());
  }
}
