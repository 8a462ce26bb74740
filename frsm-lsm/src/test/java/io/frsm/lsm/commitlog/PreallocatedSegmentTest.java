package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
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
import java.util.concurrent.locks.LockSupport;
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

  /** A condition a test waits for; it may read files. */
  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  /** Waits for {@code condition} with a deadline, polling every 0.1 ms (never a fixed sleep). */
  private static void await(Condition condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.holds()) {
      assertTrue(System.nanoTime() < deadline, what + " within " + WAIT);
      LockSupport.parkNanos(100_000);
    }
  }

  /** Closing does not wait for a zeroing under way; it discards the spare when that ends. */
  private void awaitNoSpares() throws Exception {
    await(() -> spares().isEmpty(), "spares discarded");
  }

  private static void awaitSpare(CommitLog log) throws Exception {
    await(() -> log.stripe(0).spareReady(), "a spare segment");
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

  /**
   * Records, at each rename of a spare into a segment, what the spare's first bytes on disk say and
   * whether anything written to it was not yet synced.
   */
  private static final class RenameWitness extends ForwardingFileSystem {
    final List<String> renames = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.Map<Path, Boolean> unsynced =
        new java.util.concurrent.ConcurrentHashMap<>();

    RenameWitness() {
      super(NioFileSystem.INSTANCE);
    }

    @Override
    public WritableFile create(Path path) throws java.io.IOException {
      WritableFile file = delegate.create(path);
      unsynced.put(path, false);
      return new WritableFile() {
        @Override
        public void write(ByteBuffer src) throws java.io.IOException {
          unsynced.put(path, true);
          file.write(src);
        }

        @Override
        public void sync() throws java.io.IOException {
          file.sync();
          unsynced.put(path, false);
        }

        @Override
        public long position() {
          return file.position();
        }

        @Override
        public boolean preallocate(long sizeBytes) throws java.io.IOException {
          return file.preallocate(sizeBytes);
        }

        @Override
        public void close() throws java.io.IOException {
          file.close();
        }
      };
    }

    @Override
    public void rename(Path source, Path target) throws java.io.IOException {
      if (SegmentPreallocator.isSpare(source)) {
        byte[] head = new byte[SegmentHeader.BYTES];
        try (var in = Files.newInputStream(source)) {
          assertEquals(head.length, in.readNBytes(head, 0, head.length));
        }
        SegmentHeader header = SegmentHeader.decode(ByteBuffer.wrap(head), source);
        renames.add(
            "header id "
                + header.segmentId()
                + " for "
                + CommitLogSegment.parseId(target)
                + (unsynced.get(source) ? ", unsynced" : ", synced"));
      }
      delegate.rename(source, target);
    }
  }

  @Test
  void aSpareCarriesItsSegmentsHeader_syncedBeforeItIsRenamed() throws Exception {
    // A rename can reach the disk before a later overwrite: renaming first would risk a segment
    // name on a file of zeros, which replay reads as a bad header.
    RenameWitness fs = new RenameWitness();
    try (CommitLog log = CommitLog.open(fs, config(true), new SimpleMeterRegistry(), cell -> {})) {
      awaitSpare(log);
      log.append(TestCells.cell(1, 100)).get(10, TimeUnit.SECONDS);
    }
    assertEquals(List.of("header id 2 for 2, synced"), fs.renames);
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
