package io.frsm.lsm;

import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.compaction.RateLimiter;
import io.frsm.lsm.compaction.SizeTieredPlanner;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.sstable.SSTableOptions;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The flush pipeline and the compactions, wired to each other: a published flush asks for a minor
 * compaction; flushes and compactions report the purge marks they write, and a mark past its grace
 * period starts a major compaction ({@link PurgeCompactions}) that drops the purged deletes.
 */
final class FlushAndCompaction {
  final PurgeCompactions purges;
  final CompactionManager compactions;
  final FlushPipeline flushes;

  /**
   * @param importing the ranges being imported, whose deletes compactions must keep (see {@link
   *     TombstonePolicy})
   */
  FlushAndCompaction(
      LsmConfig config,
      FileSystem fs,
      EngineState state,
      CommitLog commitLog,
      SSTableOptions tableOptions,
      LsmMetrics metrics,
      EngineThreads threads,
      LongSupplier wallClockMillis,
      ImportRanges importing) {
    // Created first with a call back to compactMajor: the compaction manager it starts reports
    // to it in turn.
    this.purges =
        new PurgeCompactions(
            config.tombstoneGracePeriod().toMillis(),
            config.tombstoneCompactionInterval().toMillis(),
            this::compactMajor);
    this.compactions =
        new CompactionManager(
            fs,
            state,
            new SizeTieredPlanner(
                config.minorCompactionMinTables(), config.minorCompactionMaxTables()),
            new RateLimiter(config.compactionThroughputLimitBytesPerSecond()),
            new TombstonePolicy(config.tombstoneGracePeriod(), wallClockMillis, importing),
            tableOptions,
            metrics,
            threads.compaction,
            purges::marked);
    this.flushes =
        new FlushPipeline(
            fs,
            state,
            commitLog,
            tableOptions,
            metrics,
            threads.flush,
            compactions::maybeScheduleMinor,
            purges::marked);
  }

  /** See {@link LsmEngine#compactMajor()}. */
  CompletableFuture<Void> compactMajor() {
    return compactions.compactMajor();
  }
}
