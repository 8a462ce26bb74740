package io.frsm.lsm;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's background threads (flush, compaction, maintenance, scrub; daemons, so a forgotten
 * engine never keeps a JVM alive) and the order in which they stop.
 */
final class EngineThreads {
  // The engine's logger: operators configure the engine's log by that name.
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  final ScheduledExecutorService flush;
  final ExecutorService compaction;
  final ScheduledExecutorService maintenance;
  final ExecutorService scrub;

  EngineThreads(int compactionThreads) {
    this.flush = Executors.newSingleThreadScheduledExecutor(named("frsm-lsm-flush"));
    this.compaction = Executors.newFixedThreadPool(compactionThreads, named("frsm-lsm-compaction"));
    this.maintenance = Executors.newSingleThreadScheduledExecutor(named("frsm-lsm-maintenance"));
    this.scrub = Executors.newSingleThreadExecutor(named("frsm-lsm-scrub"));
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Stops every thread and waits (up to 60 s each) for them to end. Maintenance and the scrub are
   * interrupted at once; flushes and compactions finish what is queued unless {@code now}, which
   * abandons them (as if the process died).
   */
  void stop(boolean now, Runnable stopScrub) {
    maintenance.shutdownNow();
    stopScrub.run();
    scrub.shutdownNow();
    if (now) {
      compaction.shutdownNow();
      flush.shutdownNow();
    } else {
      flush.shutdown();
      compaction.shutdown();
    }
    awaitQuietly(maintenance);
    awaitQuietly(scrub);
    awaitQuietly(flush);
    awaitQuietly(compaction);
  }

  private static void awaitQuietly(ExecutorService executor) {
    try {
      if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
        LOG.log(System.Logger.Level.WARNING, "LSM threads did not stop within 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
