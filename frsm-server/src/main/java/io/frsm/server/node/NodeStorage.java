package io.frsm.server.node;

import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.store.CachingCellStore;
import io.frsm.store.LsmCellStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;

/**
 * This node's disk: the LSM engine (opening it replays the commit log), this incarnation's boot
 * count (moved on durably once per start) and the clock cache the core reads cells through.
 * Immutable once open; the engine is thread-safe.
 */
final class NodeStorage {
  private final DataDirectoryLock lock;
  private final LsmEngine engine;
  private final int boot;
  private final CachingCellStore cells;
  private final java.util.concurrent.atomic.LongAdder forcedCompactions =
      new java.util.concurrent.atomic.LongAdder();

  private NodeStorage(DataDirectoryLock lock, LsmEngine engine, int boot, CachingCellStore cells) {
    this.lock = lock;
    this.engine = engine;
    this.boot = boot;
    this.cells = cells;
  }

  /**
   * Claims the directories ({@link DataDirectoryLock}), opens the engine, then moves the boot
   * counter on: after the engine opened (so a damaged directory fails before a boot is spent) and
   * before anything is sent, so that no ballot of an earlier incarnation can be reused.
   *
   * @throws DataDirectoryLock.InUseException if another process holds a directory
   * @throws IOException if the directories cannot be opened or the boot counter written
   */
  static NodeStorage open(
      LsmConfig config, MeterRegistry meters, Path dataDirectory, long clockCacheBytes)
      throws IOException {
    java.util.List<Path> directories = new java.util.ArrayList<>();
    directories.add(dataDirectory);
    directories.add(config.dataDirectory());
    directories.addAll(config.commitLogDirectories());
    DataDirectoryLock lock = DataDirectoryLock.acquire(directories);
    LsmEngine engine;
    try {
      engine = LsmEngine.open(config, NioFileSystem.INSTANCE, meters);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
    try {
      int boot = BootCounter.next(dataDirectory);
      return new NodeStorage(
          lock, engine, boot, new CachingCellStore(new LsmCellStore(engine), clockCacheBytes));
    } catch (IOException | RuntimeException e) {
      try {
        engine.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      lock.close();
      throw e;
    }
  }

  LsmEngine engine() {
    return engine;
  }

  /** This incarnation's boot count (1 on the first start). */
  int boot() {
    return boot;
  }

  CachingCellStore cells() {
    return cells;
  }

  /**
   * Forces a major compaction (docs/OPERATIONS.md "Deletes and space"): every table that is not
   * segregated or quarantined into one, dropping the purged deletes past grace. Completes when it
   * is published; exceptionally if it failed (the tables stay as they were).
   */
  java.util.concurrent.CompletableFuture<Void> compact() {
    forcedCompactions.increment();
    return engine.compactMajor();
  }

  /** Major compactions forced through {@link #compact}. */
  /**
   * Once the node's meters exist: counts the forced compactions there, and warns of every token
   * interval the engine quarantined as corrupt (the node stays silent for those keys).
   */
  void announce(int nodeId, NodeMetrics metrics) {
    metrics.counter(
        "frsm.lsm.compaction.forced",
        "major compactions forced through FrsmNode.compact()",
        "by",
        "operator",
        this::forcedCompactions);
    for (io.frsm.lsm.QuarantinedInterval q : engine().quarantinedIntervals()) {
      System.getLogger(FrsmNode.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "node {0} needs repair of tokens {1} (table {2}): it stays silent for those keys",
              nodeId,
              q.tokens(),
              q.generation());
    }
  }

  long forcedCompactions() {
    return forcedCompactions.sum();
  }

  /** Graceful: flushes the memtables (the next start replays little) and closes. */
  void close() {
    try {
      engine.close();
    } finally {
      lock.close();
    }
  }

  /**
   * As if the process died: nothing more is written; the commit log holds what was acknowledged.
   */
  void kill() {
    try {
      engine.kill();
    } finally {
      lock.close(); // the process's death would release it
    }
  }
}
