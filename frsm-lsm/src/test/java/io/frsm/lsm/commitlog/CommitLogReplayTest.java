package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.WritableFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Replay of what is on disk, including every kind of damage, on the in-memory faulty disk. */
class CommitLogReplayTest {
  private static final Path DIR0 = Path.of("/log/stripe0");
  private static final Path DIR1 = Path.of("/log/stripe1");

  private final FaultyFileSystem fs = new FaultyFileSystem();

  private static CommitLogConfig oneStripe() {
    return CommitLogConfig.builder(List.of(DIR0)).build();
  }

  private static List<Cell> cells(int count) {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      cells.add(TestCells.cell(i));
    }
    return cells;
  }

  @Test
  void appendedRecords_areReplayedAfterReopen_fromEveryStripe() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0, DIR1)).build();
    List<Cell> written = cells(200);
    try (CommitLog log = CommitLog.open(fs, config, new SimpleMeterRegistry(), c -> {})) {
      List<CompletableFuture<Void>> acks = new ArrayList<>();
      written.forEach(c -> acks.add(log.append(c)));
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    }
    fs.crash(); // only synced state counts
    List<Cell> replayed = SegmentFiles.replay(fs, config);
    assertEquals(new HashSet<>(written), new HashSet<>(replayed));
    assertEquals(written.size(), replayed.size(), "each record exactly once");
    assertFalse(fs.list(DIR0).isEmpty());
    assertFalse(fs.list(DIR1).isEmpty(), "keys spread over both stripes");
  }

  @Test
  void crashWithTornTail_replaysEveryAcknowledgedRecordAndNoGarbage_manySeeds() throws Exception {
    int tornTails = 0;
    try (LogCapture warnings = new LogCapture(CommitLogReader.class)) {
      for (int seed = 0; seed < 150; seed++) {
        crashOnce(seed);
      }
      tornTails = warnings.messages(Level.WARNING).size();
    }
    assertTrue(tornTails > 0, "some crash must have torn a record");
  }

  /**
   * Holds the writers inside a sync (a batch written, not yet durable), crashes keeping a random
   * prefix of the unsynced bytes, then checks replay against the acknowledgements.
   */
  private void crashOnce(int seed) throws Exception {
    Random random = new Random(seed);
    FaultyFileSystem disk = new FaultyFileSystem();
    SyncGateFileSystem gated = new SyncGateFileSystem(disk);
    CommitLogConfig config =
        CommitLogConfig.builder(List.of(DIR0, DIR1))
            .segmentSizeBytes(2048)
            .maxBatchBytes(1024)
            .build();
    Set<Cell> appended = new HashSet<>();
    List<Cell> cells = new ArrayList<>();
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    CommitLog log = CommitLog.open(gated, config, new SimpleMeterRegistry(), c -> {});
    try {
      int synced = random.nextInt(60);
      int inFlight = 1 + random.nextInt(60);
      for (int i = 0; i < synced + inFlight; i++) {
        if (i == synced) {
          CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
          gated.close();
        }
        Cell cell = TestCells.cell(i, random.nextInt(100));
        cells.add(cell);
        appended.add(cell);
        acks.add(log.append(cell));
      }
      assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS), "seed " + seed);
      disk.crash(new Random(seed));
    } finally {
      gated.open();
      log.close();
    }
    List<Cell> replayed = SegmentFiles.replay(disk, config);
    for (Cell cell : replayed) {
      assertTrue(appended.contains(cell), "seed " + seed + ": replayed garbage " + cell);
    }
    Set<Cell> replayedSet = new HashSet<>(replayed);
    for (int i = 0; i < cells.size(); i++) {
      CompletableFuture<Void> ack = acks.get(i);
      assertTrue(ack.isDone(), "seed " + seed + ": close completes every future");
      if (!ack.isCompletedExceptionally()) {
        assertTrue(
            replayedSet.contains(cells.get(i)), "seed " + seed + ": lost acknowledged record " + i);
      }
    }
  }

  @Test
  void truncatedTrailingRecord_isIgnoredWithWarningNamingFileAndOffset() throws Exception {
    List<Cell> cells = cells(5);
    byte[] partial = new byte[RecordFormat.HEADER_BYTES + 3];
    ByteBuffer.wrap(partial).putInt(40); // a length promising more bytes than the file holds
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, partial);
    try (LogCapture log = new LogCapture(CommitLogReader.class)) {
      assertEquals(cells, SegmentFiles.replay(fs, oneStripe()));
      List<String> warnings = log.messages(Level.WARNING);
      assertEquals(1, warnings.size(), warnings.toString());
      String offset = Long.toString(SegmentFiles.recordOffset(cells, 5));
      assertTrue(warnings.get(0).contains(file.toString()), warnings.get(0));
      assertTrue(warnings.get(0).contains("offset " + offset), warnings.get(0));
    }
  }

  @Test
  void recordHeaderCutShort_isTornTail() throws Exception {
    List<Cell> cells = cells(3);
    SegmentFiles.write(fs, DIR0, 1, cells, new byte[] {0, 0, 0});
    assertEquals(cells, SegmentFiles.replay(fs, oneStripe()));
  }

  @Test
  void zeroFilledTail_isTornTail() throws Exception {
    List<Cell> cells = cells(5);
    SegmentFiles.write(fs, DIR0, 1, cells, new byte[4096]);
    assertEquals(cells, SegmentFiles.replay(fs, oneStripe()));
  }

  @Test
  void garbageTail_isCorruption() throws Exception {
    // No cut-short write leaves non-zero bytes that are not a record's first part: damage.
    List<Cell> cells = cells(5);
    byte[] garbage = new byte[3000];
    new Random(7).nextBytes(garbage);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, garbage);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(file, e.file());
    assertEquals(SegmentFiles.recordOffset(cells, 5), e.offset());
  }

  @Test
  void flippedByteInLastRecord_isCorruption() throws Exception {
    // Nothing intact follows it, but the record is there in full: written whole, maybe
    // acknowledged, damaged since (CommitLogCutOrDamageTest has the other cases).
    List<Cell> cells = cells(5);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    fs.flipByte(file, SegmentFiles.recordOffset(cells, 4) + 12);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(SegmentFiles.recordOffset(cells, 4), e.offset());
  }

  @Test
  void flippedPayloadByteMidSegment_failsOpenWithCorruptionNamingFileAndOffset() throws Exception {
    List<Cell> cells = cells(20);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    long bad = SegmentFiles.recordOffset(cells, 10);
    fs.flipByte(file, bad + RecordFormat.HEADER_BYTES + 5);
    List<Cell> replayed = new ArrayList<>();
    CorruptionException e =
        assertThrows(
            CorruptionException.class,
            () -> CommitLog.open(fs, oneStripe(), new SimpleMeterRegistry(), replayed::add));
    assertEquals(file, e.file());
    assertEquals(bad, e.offset());
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    assertEquals(cells.subList(0, 10), replayed, "damaged record never returned as data");
  }

  @Test
  void flippedLengthByteMidSegment_isCorruptionNotTornTail() throws Exception {
    // A damaged high length byte sends the length past the end of the file, like a torn record;
    // the intact records after it show that it is not one.
    List<Cell> cells = cells(20);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    long bad = SegmentFiles.recordOffset(cells, 7);
    fs.flipByte(file, bad + 1);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(bad, e.offset());
  }

  @Test
  void flippedChecksumByteMidSegment_isCorruption() throws Exception {
    List<Cell> cells = cells(20);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    long bad = SegmentFiles.recordOffset(cells, 3);
    fs.flipByte(file, bad + 6);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(bad, e.offset());
  }

  @Test
  void flippedByteMidSegment_withSkipCorruptSegmentTail_logsErrorAndKeepsEarlierRecords()
      throws Exception {
    List<Cell> cells = cells(20);
    Path damaged = SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    List<Cell> later = List.of(TestCells.cell(100), TestCells.cell(101));
    SegmentFiles.write(fs, DIR0, 2, later, new byte[0]);
    long bad = SegmentFiles.recordOffset(cells, 10);
    fs.flipByte(damaged, bad + RecordFormat.HEADER_BYTES + 2);
    CommitLogConfig config =
        CommitLogConfig.builder(List.of(DIR0)).skipCorruptSegmentTail(true).build();
    try (LogCapture log = new LogCapture(CommitLogReader.class)) {
      List<Cell> expected = new ArrayList<>(cells.subList(0, 10));
      expected.addAll(later);
      assertEquals(expected, SegmentFiles.replay(fs, config), "later segments still replay");
      List<String> errors = log.messages(Level.SEVERE);
      assertEquals(1, errors.size(), errors.toString());
      assertTrue(errors.get(0).contains(damaged.toString()), errors.get(0));
      assertTrue(errors.get(0).contains("offset " + bad), errors.get(0));
    }
  }

  @Test
  void checksummedRecordThatIsNotACell_isCorruption() throws Exception {
    List<Cell> cells = cells(2);
    Path file = SegmentFiles.write(fs, DIR0, 1, cells, record(new byte[] {(byte) 0xff, 1, 2}));
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(file, e.file());
    assertEquals(SegmentFiles.recordOffset(cells, 2), e.offset());
    assertTrue(e.getMessage().contains("not a cell"), e.getMessage());
  }

  /** A correctly framed record around arbitrary payload bytes. */
  private static byte[] record(byte[] payload) {
    ByteBuffer buf = ByteBuffer.allocate(RecordFormat.HEADER_BYTES + payload.length);
    buf.putInt(payload.length);
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, 4);
    crc.update(payload);
    buf.putInt((int) crc.getValue()).put(payload);
    return buf.array();
  }

  @Test
  void implausibleLength_isRejectedWithoutAllocating() throws Exception {
    // 2 GiB length at the tail: corruption (the header is there in full), not an OutOfMemoryError.
    List<Cell> cells = cells(2);
    SegmentFiles.write(
        fs, DIR0, 1, cells, new byte[] {0x7f, (byte) 0xff, (byte) 0xff, -1, 0, 0, 0, 0, 1});
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(SegmentFiles.recordOffset(cells, 2), e.offset());
  }

  @Test
  void badHeaderMagic_failsOpenWithCorruption() throws Exception {
    Path file = SegmentFiles.write(fs, DIR0, 1, cells(3), new byte[0]);
    fs.flipByte(file, 0);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(file, e.file());
    assertEquals(0, e.offset());
  }

  @Test
  void headerChecksumMismatch_failsOpenWithCorruption() throws Exception {
    Path file = SegmentFiles.write(fs, DIR0, 1, cells(3), new byte[0]);
    fs.flipByte(file, 15); // inside the segment id
    assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
  }

  @Test
  void headerIdDifferentFromFileName_isCorruption() throws Exception {
    Path written = SegmentFiles.write(fs, DIR0, 1, cells(3), new byte[0]);
    Path renamed = DIR0.resolve(CommitLogSegment.fileName(5));
    fs.rename(written, renamed);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> SegmentFiles.replay(fs, oneStripe()));
    assertEquals(renamed, e.file());
  }

  @Test
  void segmentShorterThanHeader_isDeletedWithWarning() throws Exception {
    fs.createDirectories(DIR0);
    Path stub = DIR0.resolve(CommitLogSegment.fileName(3));
    try (WritableFile f = fs.create(stub)) {
      f.write(ByteBuffer.wrap(new byte[] {0x46, 0x52, 0x43}));
      f.sync();
    }
    fs.syncDirectory(DIR0);
    try (LogCapture log = new LogCapture(CommitLog.class)) {
      assertEquals(List.of(), SegmentFiles.replay(fs, oneStripe()));
      assertEquals(1, log.messages(Level.WARNING).size());
    }
    assertFalse(fs.exists(stub));
    fs.crash();
    assertFalse(fs.exists(stub), "the deletion was made durable");
  }

  @Test
  void emptySegmentFile_isDeleted() throws Exception {
    fs.createDirectories(DIR0);
    Path empty = DIR0.resolve(CommitLogSegment.fileName(1));
    fs.create(empty).close();
    assertEquals(List.of(), SegmentFiles.replay(fs, oneStripe()));
    assertFalse(fs.exists(empty), "deleted, and its id not reused");
    assertTrue(fs.exists(DIR0.resolve(CommitLogSegment.fileName(2))));
  }

  @Test
  void otherFilesInStripeDirectory_areLeftAlone() throws Exception {
    fs.createDirectories(DIR0);
    Path other = DIR0.resolve("README");
    try (WritableFile f = fs.create(other)) {
      f.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }
    assertEquals(List.of(), SegmentFiles.replay(fs, oneStripe()));
    assertTrue(fs.exists(other));
  }

  @Test
  void recordLargerThanReadChunk_replays() throws Exception {
    Cell big = TestCells.cell(1, 3 * CommitLogReader.CHUNK_BYTES);
    List<Cell> cells = List.of(TestCells.cell(0), big, TestCells.cell(2));
    SegmentFiles.write(fs, DIR0, 1, cells, new byte[0]);
    assertEquals(cells, SegmentFiles.replay(fs, oneStripe()));
    assertTrue(CellCodec.encodedSize(big) > CommitLogReader.CHUNK_BYTES);
  }
}
