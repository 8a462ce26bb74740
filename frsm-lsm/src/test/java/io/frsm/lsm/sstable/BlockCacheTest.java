package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BlockCacheTest {
  private static final Path TABLE = Path.of("/db/1.sst");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SSTableMetrics metrics = new SSTableMetrics(registry);
  private final List<Cell> cells = TableFixtures.randomCells(new Random(4), 3000);

  @BeforeEach
  void writeTable() throws IOException {
    fs.createDirectories(TABLE.getParent());
    TableFixtures.write(fs, TABLE, cells, SSTableOptions.defaults());
  }

  private double count(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void secondGetOfABlock_isACacheHit() throws IOException {
    BlockCache cache = BlockCache.create(1 << 20, registry);
    try (SSTableReader reader = SSTableReader.open(fs, TABLE, cache, metrics)) {
      assertEquals(cells.get(100), reader.get(cells.get(100).key()));
      assertEquals(1, count("frsm.sstable.block.reads"));
      assertEquals(0, count("frsm.sstable.block.cache.hits"));
      assertEquals(cells.get(100), reader.get(cells.get(100).key()));
      assertEquals(1, count("frsm.sstable.block.reads"), "no second read");
      assertEquals(1, count("frsm.sstable.block.cache.hits"));
      assertTrue(cache.sizeBytes() > 0);
    }
    assertEquals(0, cache.sizeBytes(), "closing the reader drops its blocks");
  }

  @Test
  void cache_respectsItsWeightBound() throws IOException {
    long capacity = 64 * 1024;
    BlockCache cache = BlockCache.create(capacity, registry);
    try (SSTableReader reader = SSTableReader.open(fs, TABLE, cache, metrics)) {
      assertTrue(reader.metadata().fileSizeBytes() > 10 * capacity, "the table dwarfs the cache");
      for (Cell cell : cells) {
        assertEquals(cell, reader.get(cell.key()));
        assertTrue(cache.sizeBytes() <= capacity, cache.sizeBytes() + " bytes cached");
      }
      assertTrue(cache.sizeBytes() > capacity / 2, "the cache is used");
      assertEquals(capacity, cache.capacityBytes());
    }
  }

  @Test
  void iterators_readThroughTheCacheWithoutFillingIt() throws IOException {
    BlockCache cache = BlockCache.create(1 << 20, registry);
    try (SSTableReader reader = SSTableReader.open(fs, TABLE, cache, metrics)) {
      assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
      assertEquals(0, cache.sizeBytes());
      reader.get(cells.get(0).key());
      double reads = count("frsm.sstable.block.reads");
      assertEquals(
          cells.subList(0, 1), TableFixtures.drain(reader.iterator(null, cells.get(1).key())));
      assertEquals(reads, count("frsm.sstable.block.reads"), "the cached first block was used");
    }
  }

  @Test
  void bloomFilter_countsNegativesAndFalsePositives() throws IOException {
    try (SSTableReader reader = SSTableReader.open(fs, TABLE, BlockCache.disabled(), metrics)) {
      Random random = new Random(8);
      Set<Key> present = cells.stream().map(Cell::key).collect(Collectors.toSet());
      int absent = 0;
      while (absent < 20_000) {
        Key key = TableFixtures.randomKey(random);
        if (!present.contains(key)) {
          assertNull(reader.get(key));
          absent++;
        }
      }
      double negatives = count("frsm.sstable.bloom.negatives");
      double falsePositives = count("frsm.sstable.bloom.false.positives");
      assertTrue(negatives > 0 && falsePositives > 0, negatives + " / " + falsePositives);
      // Keys outside the table's range never reach the filter; the rest are one or the other.
      assertTrue(negatives + falsePositives <= absent);
      assertEquals(falsePositives, count("frsm.sstable.block.reads"), "only false positives read");
    }
  }

  @Test
  void disabledCache_neverHits() throws IOException {
    try (SSTableReader reader = SSTableReader.open(fs, TABLE, BlockCache.disabled(), metrics)) {
      reader.get(cells.get(5).key());
      reader.get(cells.get(5).key());
      assertEquals(2, count("frsm.sstable.block.reads"));
      assertEquals(0, count("frsm.sstable.block.cache.hits"));
    }
  }
}
