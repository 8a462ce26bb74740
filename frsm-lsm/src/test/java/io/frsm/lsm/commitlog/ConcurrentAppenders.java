package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Writers that append to one commit log at once, each waiting for its record before the next. */
final class ConcurrentAppenders {
  private ConcurrentAppenders() {}

  /**
   * Appends {@code TestCells.cell(0 .. threads * perThread - 1)} from {@code threads} threads
   * (thread t appends cells {@code t * perThread} onwards) and returns once every record is
   * acknowledged.
   */
  static void append(CommitLog log, int threads, int perThread) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int base = t * perThread;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    log.append(TestCells.cell(base + i)).get(10, TimeUnit.SECONDS);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }
  }
}
