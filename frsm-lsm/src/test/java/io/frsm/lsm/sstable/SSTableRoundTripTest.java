package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.NioFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SSTableRoundTripTest {
  private static final int CELLS = 4000;

  @TempDir Path tempDir;

  private FileSystem fs;
  private Path dir;
  private List<Cell> cells;
  private SSTableMetadata written;
  private SSTableReader reader;
  private int tables;

  @AfterEach
  void closeReader() {
    if (reader != null) {
      reader.close();
    }
  }

  @BeforeEach
  void setUp() {
    cells = TableFixtures.randomCells(new Random(42), CELLS);
  }

  private void writeAndOpen(String fileSystem, SSTableOptions options) throws IOException {
    if (fileSystem.equals("nio")) {
      fs = NioFileSystem.INSTANCE;
      dir = tempDir;
    } else {
      fs = new FaultyFileSystem();
      dir = Path.of("/db/tables");
      fs.createDirectories(dir);
    }
    closeReader();
    Path path = dir.resolve(++tables + ".sst");
    written = TableFixtures.write(fs, path, cells, options);
    reader =
        SSTableReader.open(
            fs,
            written.path(),
            BlockCache.create(
                1 << 20, new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
            SSTableMetrics.noop());
  }

  @ParameterizedTest
  @ValueSource(strings = {"nio", "faulty"})
  void everyCell_readsBackExactly(String fileSystem) throws IOException {
    writeAndOpen(fileSystem, SSTableOptions.defaults());
    for (Cell cell : cells) {
      assertEquals(cell, reader.get(cell.key()));
      assertTrue(reader.mightContain(cell.key()));
    }
    assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"nio", "faulty"})
  void metadata_describesTheTable(String fileSystem) throws IOException {
    writeAndOpen(fileSystem, SSTableOptions.defaults());
    SSTableMetadata expected =
        new SSTableMetadata(
            written.path(),
            fs.size(written.path()),
            CELLS,
            cells.get(0).key(),
            cells.get(CELLS - 1).key(),
            cells.stream().mapToLong(Cell::writeTimeMs).max().orElseThrow(),
            true,
            SSTableFormat.FORMAT_VERSION);
    assertEquals(expected, written);
    assertEquals(expected, reader.metadata());
  }

  @Test
  void absentKeys_returnNull() throws IOException {
    writeAndOpen("faulty", SSTableOptions.defaults());
    Random random = new Random(7);
    int checked = 0;
    while (checked < 20_000) {
      Key key = TableFixtures.randomKey(random);
      if (cells.stream().noneMatch(c -> c.key().equals(key))) {
        assertNull(reader.get(key));
        checked++;
      }
    }
    // Keys just outside the table's range, and keys between neighbours sharing a prefix.
    assertNull(reader.get(Key.of(new byte[0])));
    for (int i = 0; i < 200; i++) {
      byte[] bytes = cells.get(i * 7).key().toByteArray();
      byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
      Key key = Key.wrap(longer);
      if (cells.stream().noneMatch(c -> c.key().equals(key))) {
        assertNull(reader.get(key));
      }
    }
  }

  @Test
  void iterator_honoursBoundsThatFallMidBlock() throws IOException {
    writeAndOpen("faulty", new SSTableOptions(512, 10));
    Random random = new Random(3);
    for (int i = 0; i < 200; i++) {
      // Bounds on stored keys (inclusive start, exclusive end), or open.
      int a = random.nextInt(CELLS);
      int b = a + random.nextInt(CELLS + 1 - a);
      Key from = i % 10 == 0 ? null : cells.get(a).key();
      Key to = b == CELLS ? null : cells.get(b).key();
      List<Cell> expected = cells.subList(from == null ? 0 : a, b);
      assertEquals(expected, TableFixtures.drain(reader.iterator(from, to)));
    }
    for (int i = 0; i < 100; i++) {
      // Bounds between stored keys.
      Key from = TableFixtures.randomKey(random);
      Key to = TableFixtures.randomKey(random);
      List<Cell> expected =
          cells.stream()
              .filter(c -> c.key().compareTo(from) >= 0 && c.key().compareTo(to) < 0)
              .collect(Collectors.toList());
      assertEquals(expected, TableFixtures.drain(reader.iterator(from, to)));
    }
    Key ninth = cells.get(9).key();
    assertEquals(List.of(), TableFixtures.drain(reader.iterator(ninth, ninth)));
    assertEquals(List.of(), TableFixtures.drain(reader.iterator(ninth, cells.get(3).key())));
    assertEquals(cells.subList(0, 9), TableFixtures.drain(reader.iterator(null, ninth)));
    assertEquals(
        cells.subList(9, 10), TableFixtures.drain(reader.iterator(ninth, cells.get(10).key())));
  }

  @Test
  void scanTokens_returnsExactlyTheKeysInTheTokenRange() throws IOException {
    writeAndOpen("faulty", new SSTableOptions(512, 10));
    assertEquals(cells, TableFixtures.drain(reader.scanTokens(Long.MIN_VALUE, Long.MAX_VALUE)));
    Random random = new Random(11);
    for (int i = 0; i < 300; i++) {
      long from;
      long to;
      switch (i % 3) {
        case 0 -> { // bounds on stored tokens: start and end mid-block, inclusive at both ends
          int a = random.nextInt(CELLS);
          int b = a + random.nextInt(CELLS - a);
          from = cells.get(a).key().token();
          to = cells.get(b).key().token();
        }
        case 1 -> { // arbitrary tokens, possibly empty or reversed
          from = random.nextLong();
          to = random.nextLong();
        }
        default -> { // a single stored token
          from = cells.get(random.nextInt(CELLS)).key().token();
          to = from;
        }
      }
      long f = from;
      long t = to;
      List<Cell> expected =
          cells.stream()
              .filter(c -> c.key().token() >= f && c.key().token() <= t)
              .collect(Collectors.toList());
      assertEquals(expected, TableFixtures.drain(reader.scanTokens(from, to)));
    }
    long first = cells.get(0).key().token();
    long last = cells.get(CELLS - 1).key().token();
    assertEquals(List.of(), TableFixtures.drain(reader.scanTokens(Long.MIN_VALUE, first - 1)));
    assertEquals(List.of(), TableFixtures.drain(reader.scanTokens(last + 1, Long.MAX_VALUE)));
    assertEquals(List.of(), TableFixtures.drain(reader.scanTokens(5, 4)));
  }

  @Test
  void tableWithoutBloomFilter_stillFindsEveryKey() throws IOException {
    writeAndOpen("faulty", new SSTableOptions(SSTableOptions.DEFAULT_BLOCK_SIZE_BYTES, 0));
    for (Cell cell : cells) {
      assertEquals(cell, reader.get(cell.key()));
    }
    assertTrue(reader.mightContain(cells.get(CELLS / 2).key()));
  }

  @Test
  void singleCellAndOversizedCells_roundTrip() throws IOException {
    cells = List.of(cells.get(0));
    writeAndOpen("faulty", SSTableOptions.defaults());
    assertEquals(cells.get(0), reader.get(cells.get(0).key()));
    assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
    // Every cell larger than the block: one cell per block.
    cells =
        TableFixtures.randomCells(new Random(5), 300).stream()
            .filter(c -> CellCodec.encodedSize(c) > 300)
            .collect(Collectors.toList());
    writeAndOpen("faulty", new SSTableOptions(256, 10));
    for (Cell cell : cells) {
      assertEquals(cell, reader.get(cell.key()));
    }
    assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
  }
}
