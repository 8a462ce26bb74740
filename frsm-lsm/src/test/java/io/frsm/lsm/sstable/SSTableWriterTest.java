package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.NioFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SSTableWriterTest {
  private static final Path DIR = Path.of("/db/tables");
  private static final Path TABLE = DIR.resolve("7.sst");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final List<Cell> cells = TableFixtures.randomCells(new Random(1), 500);

  @BeforeEach
  void createDirectory() {
    fs.createDirectories(DIR);
  }

  private void assertNothingPublished() {
    assertFalse(fs.exists(TABLE), "no table at the final path");
    assertFalse(fs.exists(SSTableWriter.temporaryPathOf(TABLE)), "temporary file deleted");
  }

  @Test
  void addOutOfOrder_throwsAndPublishesNothing() throws IOException {
    try (SSTableWriter writer = SSTableWriter.create(fs, TABLE, 3, SSTableOptions.defaults())) {
      writer.add(cells.get(1));
      assertThrows(IllegalStateException.class, () -> writer.add(cells.get(0)));
      assertThrows(IllegalStateException.class, writer::finish, "the writer is failed");
    }
    assertNothingPublished();
  }

  @Test
  void addSameKeyTwice_throwsAndPublishesNothing() throws IOException {
    try (SSTableWriter writer = SSTableWriter.create(fs, TABLE, 3, SSTableOptions.defaults())) {
      writer.add(cells.get(0));
      assertThrows(IllegalStateException.class, () -> writer.add(cells.get(0)));
    }
    assertNothingPublished();
  }

  @Test
  void finishWithoutCells_isRejected() throws IOException {
    try (SSTableWriter writer = SSTableWriter.create(fs, TABLE, 0, SSTableOptions.defaults())) {
      assertThrows(IllegalStateException.class, writer::finish);
    }
    assertNothingPublished();
  }

  @Test
  void closeBeforeFinish_deletesTheTemporaryFile() throws IOException {
    try (SSTableWriter writer = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults())) {
      for (Cell cell : cells) {
        writer.add(cell);
      }
      assertTrue(writer.bytesWritten() > 0);
    }
    assertNothingPublished();
  }

  @Test
  void crashBeforeFinish_leavesNoTable() throws IOException {
    SSTableWriter writer = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults());
    for (Cell cell : cells) {
      writer.add(cell);
    }
    fs.crash();
    assertNothingPublished();
    assertThrows(IOException.class, writer::finish, "the file handle died with the crash");
    writer.close();
    assertNothingPublished();
  }

  @Test
  void finishThenCrash_tableOpensComplete() throws IOException {
    SSTableMetadata metadata = TableFixtures.write(fs, TABLE, cells, SSTableOptions.defaults());
    fs.crash();
    assertFalse(fs.exists(SSTableWriter.temporaryPathOf(TABLE)));
    try (SSTableReader reader =
        SSTableReader.open(fs, TABLE, BlockCache.disabled(), SSTableMetrics.noop())) {
      assertEquals(metadata, reader.metadata());
      assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
    }
  }

  @Test
  void tornWriteCrashBeforeFinish_leavesNoTable() throws IOException {
    SSTableWriter writer = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults());
    for (Cell cell : cells) {
      writer.add(cell);
    }
    fs.crash(new Random(9));
    assertNothingPublished();
    writer.close();
  }

  @Test
  void diskFull_failsAndPublishesNothing() throws IOException {
    fs.setCapacityBytes(20_000);
    SSTableWriter writer = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults());
    assertThrows(
        IOException.class,
        () -> {
          for (Cell cell : cells) {
            writer.add(cell);
          }
          writer.finish();
        });
    writer.close();
    assertNothingPublished();
  }

  @Test
  void syncFailure_failsAndPublishesNothing() throws IOException {
    SSTableWriter writer = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults());
    for (Cell cell : cells) {
      writer.add(cell);
    }
    fs.setFailSyncs(true);
    assertThrows(IOException.class, writer::finish);
    fs.setFailSyncs(false);
    writer.close();
    assertNothingPublished();
  }

  @Test
  void staleTemporaryFile_isReplaced() throws IOException {
    SSTableWriter abandoned = SSTableWriter.create(fs, TABLE, 500, SSTableOptions.defaults());
    abandoned.add(cells.get(0));
    // A crashed process never closed it; a new writer for the same table starts over.
    SSTableMetadata metadata = TableFixtures.write(fs, TABLE, cells, SSTableOptions.defaults());
    assertEquals(cells.size(), metadata.cellCount());
  }

  @Test
  void bytesWritten_isTheFileSizeAfterFinish(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("1.sst");
    try (SSTableWriter writer =
        SSTableWriter.create(NioFileSystem.INSTANCE, path, 500, SSTableOptions.defaults())) {
      long previous = 0;
      for (Cell cell : cells) {
        writer.add(cell);
        assertTrue(writer.bytesWritten() > previous, "grows with every cell");
        previous = writer.bytesWritten();
      }
      SSTableMetadata metadata = writer.finish();
      assertEquals(Files.size(path), writer.bytesWritten());
      assertEquals(Files.size(path), metadata.fileSizeBytes());
    }
    assertFalse(Files.exists(SSTableWriter.temporaryPathOf(path)));
  }
}
