package io.frsm.lsm;

import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.memtable.Memtable;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The periodic checks (every {@link LsmEngine#MAINTENANCE_PERIOD_MS}): a flush when the active
 * memtable outlived {@code memtableLifetime}, the commit log is over its size limit, or the heap is
 * under pressure; then a minor compaction and a purge compaction if either is due.
 */
final class MaintenanceChecks {
  // The engine's logger: operators configure the engine's log by that name.
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  private final LsmConfig config;
  private final EngineState state;
  private final CommitLog commitLog;
  private final FlushPipeline flushes;
  private final MemtableSwitch memtables;
  private final CompactionManager compactions;
  private final PurgeCompactions purges;
  private final LongSupplier wallClockMillis;
  private volatile DoubleSupplier heapUsedFraction = MaintenanceChecks::runtimeHeapUsedFraction;

  MaintenanceChecks(
      LsmConfig config,
      EngineState state,
      CommitLog commitLog,
      FlushPipeline flushes,
      MemtableSwitch memtables,
      CompactionManager compactions,
      PurgeCompactions purges,
      LongSupplier wallClockMillis) {
    this.config = config;
    this.state = state;
    this.commitLog = commitLog;
    this.flushes = flushes;
    this.memtables = memtables;
    this.compactions = compactions;
    this.purges = purges;
    this.wallClockMillis = wallClockMillis;
  }

  /** Runs the checks now (nothing once the engine is closed). */
  void run() {
    if (memtables.isClosed()) {
      return;
    }
    Memtable active = state.peek().active;
    boolean nonEmpty = !active.isEmpty();
    long ageMs = wallClockMillis.getAsLong() - active.createdAtMs();
    if (nonEmpty && ageMs >= config.memtableLifetime().toMillis()) {
      LOG.log(System.Logger.Level.DEBUG, "flushing memtable {0}: older than its lifetime", active);
      memtables.flushAsync(memtables.segregatedFlushes());
    } else if (nonEmpty && commitLog.overSizeLimit() && flushes.queued() == 0) {
      LOG.log(
          System.Logger.Level.INFO,
          "flushing memtable {0}: commit log over its size limit",
          active);
      memtables.flushAsync(memtables.segregatedFlushes());
    } else if (nonEmpty
        && active.heapBytes() >= config.minFlushLargestMemtableBytes()
        && heapUsedFraction.getAsDouble() >= config.flushLargestMemtablesHeapFraction()) {
      LOG.log(System.Logger.Level.WARNING, "flushing memtable {0}: heap pressure", active);
      memtables.flushAsync(memtables.segregatedFlushes());
    }
    compactions.maybeScheduleMinor();
    purges.maybeStart(wallClockMillis.getAsLong());
  }

  /** {@link #run()} on the maintenance thread: a failure is logged, the next period runs again. */
  void tick() {
    try {
      run();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "LSM maintenance failed", e);
    }
  }

  /** Replaces the heap gauge the pressure check reads (tests simulate pressure with it). */
  void heapUsedFraction(DoubleSupplier gauge) {
    this.heapUsedFraction = gauge;
  }

  private static double runtimeHeapUsedFraction() {
    Runtime rt = Runtime.getRuntime();
    return (double) (rt.totalMemory() - rt.freeMemory()) / rt.maxMemory();
  }
}
