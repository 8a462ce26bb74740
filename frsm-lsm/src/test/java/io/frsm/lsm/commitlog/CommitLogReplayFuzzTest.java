package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of commit-log replay, which reads whatever a crash, a bad disk
 * or an attacker left in a segment. Whatever the bytes, replay either returns (treating damage at
 * the end as a torn tail) or refuses with a {@link CorruptionException} naming the segment — never
 * another exception, never an allocation sized by a forged length. A segment that was only cut
 * short must replay as a prefix of what was written.
 *
 * <p>{@link CommitLogEveryByteFlipTest} flips each byte of one segment in turn; this lets the
 * fuzzer combine edits. The oracle cannot demand the written records back after a flip: the fuzzer
 * sees the comparisons and can forge a matching CRC32C. Regression inputs and the fuzzing command
 * as in {@code FrameDecoderFuzzTest} (frsm-transport).
 */
class CommitLogReplayFuzzTest {
  private static final Path DIR = Path.of("/log/stripe0");
  private static final List<Cell> CELLS = cells();

  private static List<Cell> cells() {
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      cells.add(TestCells.cell(i));
    }
    return cells;
  }

  @FuzzTest(maxDuration = "10s")
  void damagedSegment(FuzzedDataProvider data) throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    Path file = SegmentFiles.write(fs, DIR, 1, CELLS, new byte[0]);
    int size = (int) fs.size(file);
    byte[] bytes = new byte[size];
    try (var in = fs.openRead(file)) {
      in.readFully(ByteBuffer.wrap(bytes), 0);
    }
    int edits = data.consumeInt(0, 8);
    for (int i = 0; i < edits; i++) {
      bytes[data.consumeInt(0, size - 1)] ^= (byte) data.consumeInt(1, 255);
    }
    int kept = data.consumeInt(0, size);
    byte[] tail = data.consumeRemainingAsBytes(); // what a crash may leave past the cut
    byte[] segment = Arrays.copyOf(bytes, kept + tail.length);
    System.arraycopy(tail, 0, segment, kept, tail.length);
    rewrite(fs, file, segment);
    List<Cell> replayed = replay(fs, file);
    if (edits == 0 && tail.length == 0 && replayed != null) {
      assertEquals(CELLS.subList(0, replayed.size()), replayed, "a cut segment is a prefix");
    }
  }

  @FuzzTest(maxDuration = "10s")
  void arbitrarySegment(byte[] bytes) throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    Path file = SegmentFiles.write(fs, DIR, 1, List.of(), new byte[0]);
    rewrite(fs, file, bytes);
    replay(fs, file);
  }

  private static void rewrite(FaultyFileSystem fs, Path file, byte[] bytes) throws IOException {
    fs.delete(file);
    try (WritableFile out = fs.create(file)) {
      out.write(ByteBuffer.wrap(bytes));
      out.sync();
    }
    fs.syncDirectory(DIR);
  }

  /** What replay handed out, or null when it refused the segment (naming it). */
  private static List<Cell> replay(FaultyFileSystem fs, Path file) throws IOException {
    List<Cell> replayed = new ArrayList<>();
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR)).build();
    try {
      CommitLog.open(
              fs,
              config,
              new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
              replayed::add)
          .close();
      return replayed;
    } catch (CorruptionException refused) {
      assertEquals(file, refused.file(), refused.getMessage());
      return null;
    }
  }
}
