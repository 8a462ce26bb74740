package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.NioFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SSTableCorruptionTest {
  private static final Path DIR = Path.of("/db/tables");
  private static final Path TABLE = DIR.resolve("3.sst");
  private static final SSTableOptions SMALL_BLOCKS = new SSTableOptions(1024, 10);

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final List<Cell> cells = TableFixtures.randomCells(new Random(2), 400);
  private Footer footer;
  private long fileSize;

  @BeforeEach
  void writeTable() throws IOException {
    fs.createDirectories(DIR);
    fileSize = TableFixtures.write(fs, TABLE, cells, SMALL_BLOCKS).fileSizeBytes();
    byte[] footerBytes = new byte[SSTableFormat.FOOTER_BYTES];
    try (var file = fs.openRead(TABLE)) {
      file.readFully(ByteBuffer.wrap(footerBytes), fileSize - footerBytes.length);
    }
    footer = Footer.parse(footerBytes, TABLE, fileSize - footerBytes.length);
  }

  private SSTableReader open() throws IOException {
    return SSTableReader.open(fs, TABLE, BlockCache.disabled(), SSTableMetrics.noop());
  }

  private CorruptionException assertOpenReports(long offset) {
    CorruptionException e = assertThrows(CorruptionException.class, this::open);
    assertEquals(TABLE.toAbsolutePath(), e.file().toAbsolutePath());
    assertEquals(offset, e.offset(), e.getMessage());
    return e;
  }

  @Test
  void blockChecksumMismatch_isReported() throws IOException {
    BlockIndex index;
    try (SSTableReader reader = open()) {
      index = reader.index();
    }
    int damaged = index.blockCount() / 2;
    long blockOffset = index.offset(damaged);
    fs.flipByte(TABLE, blockOffset + index.length(damaged) / 3);
    try (SSTableReader reader = open()) {
      int inDamagedBlock = 0;
      for (Cell cell : cells) {
        int block = index.ceilingBlock(cell.key().token(), cell.key().bytesUnsafe());
        if (block == damaged) {
          inDamagedBlock++;
          CorruptionException e =
              assertThrows(CorruptionException.class, () -> reader.get(cell.key()));
          assertEquals(TABLE.toAbsolutePath(), e.file().toAbsolutePath());
          assertEquals(blockOffset, e.offset());
          assertTrue(e.getMessage().contains(TABLE.getFileName().toString()), e.getMessage());
        } else {
          assertEquals(cell, reader.get(cell.key()), "other blocks still read fine");
        }
      }
      assertTrue(inDamagedBlock > 0);
      CellIterator all = reader.iterator(null, null);
      CorruptionException e =
          assertThrows(CorruptionException.class, () -> TableFixtures.drain(all));
      assertEquals(blockOffset, e.offset());
      CellIterator scan = reader.scanTokens(Long.MIN_VALUE, Long.MAX_VALUE);
      assertThrows(CorruptionException.class, () -> TableFixtures.drain(scan));
    }
  }

  @Test
  void damagedFooter_isReported() throws IOException {
    long footerOffset = fileSize - SSTableFormat.FOOTER_BYTES;
    fs.flipByte(TABLE, footerOffset + 5);
    assertOpenReports(footerOffset);
  }

  @Test
  void damagedMagic_isReported() throws IOException {
    fs.flipByte(TABLE, fileSize - 1);
    assertOpenReports(fileSize - 8);
  }

  @Test
  void damagedIndex_isReported() throws IOException {
    fs.flipByte(TABLE, footer.index().offset() + 10);
    assertOpenReports(footer.index().offset());
  }

  @Test
  void damagedBloomFilter_isReported() throws IOException {
    fs.flipByte(TABLE, footer.bloom().offset() + 12);
    assertOpenReports(footer.bloom().offset());
  }

  @Test
  void damagedProperties_isReported() throws IOException {
    fs.flipByte(TABLE, footer.properties().offset() + 3);
    assertOpenReports(footer.properties().offset());
  }

  @Test
  void truncatedFile_isReported(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("9.sst");
    TableFixtures.write(NioFileSystem.INSTANCE, path, cells, SMALL_BLOCKS);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
      channel.truncate(fileSize - 100);
    }
    CorruptionException e =
        assertThrows(
            CorruptionException.class,
            () ->
                SSTableReader.open(
                    NioFileSystem.INSTANCE, path, BlockCache.disabled(), SSTableMetrics.noop()));
    assertEquals(path, e.file());
    assertEquals(fileSize - 100 - 8, e.offset(), "the magic number is where it should be");
  }

  @Test
  void fileShorterThanFooter_isReported(@TempDir Path dir) throws IOException {
    Path path = dir.resolve("9.sst");
    TableFixtures.write(NioFileSystem.INSTANCE, path, cells, SMALL_BLOCKS);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
      channel.truncate(10);
    }
    CorruptionException e =
        assertThrows(
            CorruptionException.class,
            () ->
                SSTableReader.open(
                    NioFileSystem.INSTANCE, path, BlockCache.disabled(), SSTableMetrics.noop()));
    assertEquals(0, e.offset());
  }

  /**
   * Every single damaged byte of a small table is caught: open fails, or each key reads back
   * exactly or fails with CorruptionException. Damaged data is never returned.
   */
  @Test
  void anyByteFlip_isNeverServedAsData() throws IOException {
    List<Cell> few = cells.subList(0, 12);
    Path small = DIR.resolve("small.sst");
    long size = TableFixtures.write(fs, small, few, new SSTableOptions(256, 10)).fileSizeBytes();
    for (long offset = 0; offset < size; offset++) {
      fs.flipByte(small, offset);
      try (SSTableReader reader =
          SSTableReader.open(fs, small, BlockCache.disabled(), SSTableMetrics.noop())) {
        for (Cell cell : few) {
          try {
            assertEquals(cell, reader.get(cell.key()), "offset " + offset);
          } catch (CorruptionException expected) {
            assertEquals(small.toAbsolutePath(), expected.file().toAbsolutePath());
          }
        }
      } catch (CorruptionException expected) {
        assertEquals(small.toAbsolutePath(), expected.file().toAbsolutePath());
      }
      fs.flipByte(small, offset);
    }
  }
}
