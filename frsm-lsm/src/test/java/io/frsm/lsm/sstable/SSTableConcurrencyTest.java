package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SSTableConcurrencyTest {
  private static final int THREADS = 6;

  /**
   * Point gets and iterators from several threads on one reader, with a cache small enough to evict
   * all the time: every thread sees exactly the written cells.
   */
  @Test
  void getsAndIterators_onOneReader_fromManyThreads(@TempDir Path dir) throws Exception {
    List<Cell> cells = TableFixtures.randomCells(new Random(6), 3000);
    Path path = dir.resolve("1.sst");
    TableFixtures.write(NioFileSystem.INSTANCE, path, cells, SSTableOptions.defaults());
    BlockCache cache = BlockCache.create(32 * 1024, new SimpleMeterRegistry());
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (SSTableReader reader =
        SSTableReader.open(NioFileSystem.INSTANCE, path, cache, SSTableMetrics.noop())) {
      List<Callable<Integer>> tasks = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int seed = t;
        tasks.add(
            () -> {
              Random random = new Random(seed);
              int checked = 0;
              for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 2000; i++) {
                  Cell cell = cells.get(random.nextInt(cells.size()));
                  assertEquals(cell, reader.get(cell.key()));
                  checked++;
                }
                int from = random.nextInt(cells.size());
                int to = Math.min(cells.size() - 1, from + random.nextInt(500));
                assertEquals(
                    cells.subList(from, to),
                    TableFixtures.drain(
                        reader.iterator(cells.get(from).key(), cells.get(to).key())));
                checked += to - from;
              }
              return checked;
            });
      }
      int total = 0;
      for (Future<Integer> result : pool.invokeAll(tasks)) {
        total += result.get();
      }
      assertTrue(total >= THREADS * 6000);
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }
  }
}
