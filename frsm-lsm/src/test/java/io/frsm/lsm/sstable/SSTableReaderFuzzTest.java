package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Coverage-guided fuzzing (Jazzer) of the SSTable reader, the parser that trusts a file least.
 * Whatever the bytes, opening, point reads, a full scan and the salvage scan either work or fail
 * with a {@link CorruptionException} naming the file — never another exception, never an allocation
 * sized by a forged length, never a cell filed under another key.
 *
 * <p>Two shapes: a valid table damaged by the fuzzer's edits (flipped bytes, a cut), which reaches
 * deep into blocks and the index; and a file that is nothing but the fuzzer's bytes, which tries
 * the footer and the index's lengths. The oracle cannot demand the written values back: the fuzzer
 * sees the comparisons and can forge a matching CRC32C, and a checksum is no signature. Regression
 * inputs and the fuzzing command as in {@code FrameDecoderFuzzTest} (frsm-transport).
 */
class SSTableReaderFuzzTest {
  private static final Path TABLE = Path.of("/db/tables/7.sst");
  private static final List<Cell> CELLS = TableFixtures.randomCells(new Random(24), 24);

  @FuzzTest(maxDuration = "10s")
  void damagedTable(FuzzedDataProvider data) throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    fs.createDirectories(TABLE.getParent());
    SSTableOptions options = new SSTableOptions(data.consumeInt(256, 4096), 10);
    int size = (int) TableFixtures.write(fs, TABLE, CELLS, options).fileSizeBytes();
    byte[] bytes = new byte[size];
    try (var file = fs.openRead(TABLE)) {
      file.readFully(ByteBuffer.wrap(bytes), 0);
    }
    int edits = data.consumeInt(0, 8);
    for (int i = 0; i < edits; i++) {
      bytes[data.consumeInt(0, size - 1)] ^= (byte) data.consumeInt(1, 255);
    }
    int kept = data.consumeBoolean() ? data.consumeInt(0, size) : size; // a cut, now and then
    fs.delete(TABLE);
    write(fs, Arrays.copyOf(bytes, kept));
    readEverything(fs);
  }

  @FuzzTest(maxDuration = "10s")
  void arbitraryFile(byte[] bytes) throws IOException {
    FaultyFileSystem fs = new FaultyFileSystem();
    fs.createDirectories(TABLE.getParent());
    write(fs, bytes);
    readEverything(fs);
  }

  private static void write(FaultyFileSystem fs, byte[] bytes) throws IOException {
    try (WritableFile file = fs.create(TABLE)) {
      file.write(ByteBuffer.wrap(bytes));
      file.sync();
    }
  }

  private static void readEverything(FaultyFileSystem fs) throws IOException {
    SSTableReader reader;
    try {
      reader = SSTableReader.open(fs, TABLE, BlockCache.disabled(), SSTableMetrics.noop());
    } catch (CorruptionException refused) {
      assertNamesTheTable(refused);
      return;
    }
    try (reader) {
      for (Cell written : CELLS) {
        try {
          Cell read = reader.get(written.key());
          assertTrue(read == null || read.key().equals(written.key()), "filed under another key");
        } catch (CorruptionException damaged) {
          assertNamesTheTable(damaged);
        }
      }
      drain(() -> reader.iterator(null, null));
      drain(reader::salvage);
    }
  }

  private interface Scan {
    CellIterator open() throws IOException;
  }

  private static void drain(Scan scan) throws IOException {
    try (CellIterator cells = scan.open()) {
      while (cells.hasNext()) {
        cells.next();
      }
    } catch (CorruptionException damaged) {
      assertNamesTheTable(damaged);
    }
  }

  private static void assertNamesTheTable(CorruptionException e) {
    assertEquals(TABLE.toAbsolutePath(), e.file().toAbsolutePath(), e.getMessage());
  }
}
