package io.frsm.lsm;

import io.frsm.cell.MergeConflictListener;
import io.frsm.lsm.commitlog.CommitLog;
import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.Manifest;
import io.frsm.lsm.manifest.ManifestStore;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.memtable.MemtableLoader;
import io.frsm.lsm.sstable.BlockCache;
import io.frsm.lsm.sstable.SSTableMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * What {@link LsmEngine#open} finds on disk, before any engine thread runs: the manifest, the
 * orphan and temporary files a crash left (deleted), the commit log replayed into the first
 * memtable, and the replica fence written if the log lost acknowledged records.
 */
final class EngineRecovery {
  // The engine's logger: operators configure the engine's log by that name.
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  /** The recovered state, its open (started) commit log, and the engine's metrics. */
  record Recovered(
      EngineState state,
      CommitLog commitLog,
      LsmMetrics metrics,
      MergeConflictListener conflicts) {}

  private EngineRecovery() {}

  /** Recovers {@code config.dataDirectory()} (created if missing); see {@link LsmEngine#open}. */
  static Recovered recover(
      LsmConfig config, FileSystem fs, MeterRegistry registry, LongSupplier wallClockMillis)
      throws IOException {
    Path dataDir = config.dataDirectory();
    fs.createDirectories(dataDir);
    ManifestStore manifestStore = new ManifestStore(fs, dataDir);
    Manifest manifest = manifestStore.load();
    long orphanFloor = deleteOrphans(fs, dataDir, manifest);
    LsmMetrics metrics = new LsmMetrics(registry);
    MergeConflictListener conflicts =
        (key, kept, dropped) -> {
          metrics.mergeConflicts.increment();
          MergeConflictListener.LOG.onConflict(key, kept, dropped);
        };
    BlockCache cache =
        config.blockCacheSizeBytes() > 0
            ? BlockCache.create(config.blockCacheSizeBytes(), registry)
            : BlockCache.disabled();
    EngineState state =
        new EngineState(
            fs,
            dataDir,
            manifestStore,
            manifest,
            cache,
            new SSTableMetrics(registry),
            metrics,
            orphanFloor);
    // Replay sorts the log's cells and links the first memtable from them in one pass, far
    // cheaper than inserting each into the skip list (see MemtableLoader).
    MemtableLoader replayed = new MemtableLoader(conflicts);
    AtomicReference<CorruptionException> damagedLog = new AtomicReference<>();
    CommitLog commitLog =
        CommitLog.open(
            fs,
            CommitLogConfig.builder(config.commitLogDirectories())
                .segmentSizeBytes(config.commitLogRotationThresholdBytes())
                .groupCommitWindow(config.commitLogGroupCommitWindow())
                .preallocateSegments(config.commitLogPreallocateSegments())
                .maxTotalSizeBytes(config.maxCommitLogSizeOnDiskBytes())
                .skipCorruptSegmentTail(config.skipCorruptCommitLogTail())
                // Unless the operator chose to skip such damage, it fences the replica instead
                // of stopping it: never fatal, never an amnesiac acceptor.
                .damagedSegmentTail(
                    config.skipCorruptCommitLogTail()
                        ? null
                        : e -> damagedLog.compareAndSet(null, e))
                .build(),
            registry,
            replayed::add);
    try {
      if (damagedLog.get() != null) {
        // Durable before the engine opens: no flush can discard the damaged segment first.
        ReplicaFence.write(fs, dataDir, damagedLog.get().getMessage());
      }
      state.openTables(replayed.build(0, wallClockMillis.getAsLong()));
    } catch (IOException | RuntimeException e) {
      commitLog.close();
      throw e;
    }
    return new Recovered(state, commitLog, metrics, conflicts);
  }

  /**
   * Deletes table files no manifest names (a crash mid-flush or mid-compaction) and temporary
   * files. Returns a generation above every file seen, so new tables never reuse a name.
   */
  private static long deleteOrphans(FileSystem fs, Path dataDir, Manifest manifest)
      throws IOException {
    Set<String> live = new HashSet<>();
    for (TableEntry t : manifest.tables()) {
      live.add(t.fileName());
    }
    long floor = manifest.nextGeneration();
    for (Path p : fs.list(dataDir)) {
      String name = p.getFileName().toString();
      if (name.startsWith("sst-") && name.endsWith(".db")) {
        try {
          floor = Math.max(floor, Long.parseLong(name.substring(4, name.length() - 3)) + 1);
        } catch (NumberFormatException ignored) {
          // Not ours: left alone below.
        }
        if (!live.contains(name)) {
          LOG.log(System.Logger.Level.INFO, "deleting orphan table {0}", p);
          fs.delete(p);
        }
      } else if (name.endsWith(".tmp") && !name.startsWith("MANIFEST-")) {
        LOG.log(System.Logger.Level.INFO, "deleting temporary file {0}", p);
        fs.delete(p);
      }
    }
    fs.syncDirectory(dataDir);
    return floor;
  }
}
