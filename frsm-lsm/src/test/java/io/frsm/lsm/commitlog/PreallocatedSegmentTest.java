package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.cell.Cell;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.lsm.io.WritableFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Preallocated segments on the real file system: a stripe's next segment is a spare written with
 * zeros in the background; records overwrite the zeros, replay ends cleanly at them, damage before
 * an intact record is still corruption, and no spare outlives the log.
 */
class PreallocatedSegmentTest {
  private static final long SEGMENT_BYTES = 64 * 1024;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;

  private CommitLogConfig config(boolean preallocate) {
    return CommitLogConfig.builder(List.of(root.resolve("stripe0")))
        .segmentSizeBytes(SEGMENT_BYTES)
        .preallocateSegments(preallocate)
        .build();
  }

  private static CommitLog open(CommitLogConfig config, List<Cell> replayed) throws Exception {
    return CommitLog.open(NioFileSystem.INSTANCE, config, new SimpleMeterRegistry(), replayed::add);
  }

  private List<Path> segments() throws Exception {
    try (Stream<Path> files = Files.list(root.resolve("stripe0"))) {
      return files.filter(p -> CommitLogSegment.parseId(p) >= 0).sorted().toList();
    }
  }

  private List<Path> spares() throws Exception {
    try (Stream<Path> files = Files.list(root.resolve("stripe0"))) {
      return files.filter(SegmentPreallocator::isSpare).toList();
    }
  }

  /** Closing does not wait for a zeroing under way; it discards the spare when that ends. */
  private void awaitNoSpares() throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!spares().isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "spares discarded within " + WAIT + ": " + spares());
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
  }

  /** Waits, with a deadline, until the stripe's spare is prepared. */
  private static void awaitSpare(CommitLog log) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!log.stripe(0).spareReady()) {
      assertTrue(System.nanoTime() < deadline, "a spare segment within " + WAIT);
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
  }

  /** Appends records of about 1 KB, more than one segment holds. */
  private List<Cell> fillPastOneSegment(CommitLog log) throws Exception {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 2 * SEGMENT_BYTES / 1000; i++) {
      cells.add(TestCells.cell(i, 1000));
      log.append(cells.get(i)).get(10, TimeUnit.SECONDS);
    }
    return cells;
  }

  @Test
  void recordsGoIntoTheZeroedSpare_andReplayEndsCleanlyAtItsZeros() throws Exception {
    List<Cell> written;
    try (CommitLog log = open(config(true), new ArrayList<>())) {
      awaitSpare(log);
      assertEquals(1, spares().size());
      assertEquals(SEGMENT_BYTES, Files.size(spares().get(0)), "the spare is written to full size");
      written = fillPastOneSegment(log);
      List<Path> segments = segments();
      assertTrue(segments.size() >= 3, "rolled over at least once: " + segments);
      assertEquals(
          SegmentHeader.BYTES,
          Files.size(segments.get(0)),
          "the first segment grows: the writer left it for the spare before its first record");
      assertEquals(SEGMENT_BYTES, Files.size(segments.get(1)), "the spare, renamed");
    }
    awaitNoSpares(); // closing discards the spare nobody took
    List<Cell> replayed = new ArrayList<>();
    try (LogCapture log = new LogCapture(CommitLogReader.class);
        CommitLog reopened = open(config(true), replayed)) {
      assertEquals(List.of(), log.messages(Level.WARNING), "zeros are a clean end, not a tear");
    }
    assertEquals(written, replayed, "every record, once, in order");
  }

  @Test
  void aGrowingSegment_isLeftForTheSpare_asSoonAsOneIsReady() throws Exception {
    try (CommitLog log = open(config(true), new ArrayList<>())) {
      log.append(TestCells.cell(1, 100)).get(10, TimeUnit.SECONDS);
      awaitSpare(log);
      log.append(TestCells.cell(2, 100)).get(10, TimeUnit.SECONDS);
      List<Path> segments = segments();
      assertEquals(2, segments.size());
      assertTrue(Files.size(segments.get(0)) < SEGMENT_BYTES, "the first segment grew");
      assertEquals(SEGMENT_BYTES, Files.size(segments.get(1)), "the second record is in the spare");
    }
  }

  @Test
  void damageBeforeAnIntactRecord_inAPreallocatedSegment_isStillCorruption() throws Exception {
    try (CommitLog log = open(config(true), new ArrayList<>())) {
      awaitSpare(log);
      fillPastOneSegment(log);
    }
    Path preallocated = segments().get(1);
    byte[] bytes = Files.readAllBytes(preallocated);
    int firstPayloadByte = SegmentHeader.BYTES + RecordFormat.HEADER_BYTES;
    bytes[firstPayloadByte] ^= 0x5A; // the first record's checksum fails; the second is intact
    Files.write(preallocated, bytes);
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> open(config(true), new ArrayList<>()));
    assertTrue(e.getMessage().contains(preallocated.getFileName().toString()), e.getMessage());
  }

  @Test
  void aSpareLeftByACrash_isDeletedAtOpen_andNeverReplayed() throws Exception {
    Files.createDirectories(root.resolve("stripe0"));
    Path leftover =
        root.resolve("stripe0")
            .resolve(SegmentPreallocator.SPARE_PREFIX + "7" + SegmentPreallocator.SPARE_SUFFIX);
    Files.write(leftover, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}); // not a segment's bytes
    List<Cell> replayed = new ArrayList<>();
    try (CommitLog log = open(config(false), replayed)) {
      assertFalse(Files.exists(leftover), "deleted even with preallocation off");
      assertFalse(log.stripe(0).spareReady());
    }
    assertEquals(List.of(), replayed);
  }

  @Test
  void withPreallocationOff_segmentsGrowAsWritten_andNoSpareAppears() throws Exception {
    try (CommitLog log = open(config(false), new ArrayList<>())) {
      fillPastOneSegment(log);
      assertEquals(List.of(), spares());
      for (Path segment : segments()) {
        assertTrue(Files.size(segment) < SEGMENT_BYTES, segment + " grew only as written");
      }
    }
  }

  @Test
  void nioPreallocate_writesZerosToTheSize_andLeavesTheAppendPosition() throws Exception {
    Path file = root.resolve("f");
    try (WritableFile f = NioFileSystem.INSTANCE.create(file)) {
      f.write(ByteBuffer.wrap(new byte[] {9, 9, 9}));
      f.preallocate(10_000);
      assertEquals(3, f.position());
      assertEquals(10_000, Files.size(file));
      f.write(ByteBuffer.wrap(new byte[] {7, 7}));
    }
    byte[] bytes = Files.readAllBytes(file);
    assertEquals(10_000, bytes.length, "appends overwrite the zeros; the file does not grow");
    assertEquals(List.of((byte) 9, (byte) 9, (byte) 9, (byte) 7, (byte) 7), head(bytes, 5));
    for (int i = 5; i < bytes.length; i++) {
      assertEquals(0, bytes[i], "byte " + i);
    }
  }

  private static List<Byte> head(byte[] bytes, int n) {
    List<Byte> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(bytes[i]);
    }
    return out;
  }
}
