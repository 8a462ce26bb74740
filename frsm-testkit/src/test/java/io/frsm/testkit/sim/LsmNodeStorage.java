package io.frsm.testkit.sim;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;
import io.frsm.consensus.core.Effect;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.store.CachingCellStore;
import io.frsm.store.LsmCellStore;
import io.frsm.store.LsmPersister;
import io.frsm.store.PersistListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A simulated node whose cells live in a real {@link LsmEngine} over its own in-memory {@link
 * FaultyFileSystem}: persists go through {@link LsmPersister} (commit log with group commit,
 * memtable, flushes to SSTables and compactions on the engine's threads), reads through {@link
 * LsmCellStore}, optionally behind the {@link CachingCellStore}. A crash kills the engine, drops
 * every unsynced byte ({@link FaultyFileSystem#crash()}) and reopens it, replaying the commit log.
 *
 * <p><b>Determinism.</b> The engine has threads, the simulator does not. A simulated persist
 * completes only once the engine's write future completed (the simulated disk event blocks on it),
 * so the durable state at every simulated instant is exactly the persists completed so far, as with
 * {@link SimStore}. Flush and compaction timing varies from run to run but cannot change what
 * {@code get} returns, because the cell merge is a join; so the trace hash of a seed equals that of
 * the in-memory mode (tested).
 */
final class LsmNodeStorage implements NodeStorage {
  private static final long WRITE_TIMEOUT_SECONDS = 30;

  /** Wall clock of the engine: fixed, so memtable lifetime and tombstone grace never fire. */
  private static final long ENGINE_WALL_MILLIS = Simulation.WALL_ORIGIN_MICROS / 1000;

  private final int node;
  private final DurableListener listener;
  private final boolean cached;
  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final LsmConfig config;
  private LsmEngine engine;
  private CellStore reads;
  private LsmPersister persister;
  private long readCount;
  private long writeCount;

  LsmNodeStorage(int node, DurableListener listener, boolean cached) {
    this.node = node;
    this.listener = listener;
    this.cached = cached;
    Path root = Path.of("/node-" + node);
    this.config =
        LsmConfig.builder(root.resolve("data"))
            .commitLogDirectories(List.of(root.resolve("log-a"), root.resolve("log-b")))
            .memtableFlushSizeBytes(32 * 1024) // small: runs flush and compact as they go
            .minFlushLargestMemtableBytes(32 * 1024)
            .blockCacheSizeBytes(0)
            .numberOfCompactionThreads(1)
            .build();
    open();
  }

  private void open() {
    try {
      engine = LsmEngine.open(config, fs, new SimpleMeterRegistry(), () -> ENGINE_WALL_MILLIS);
    } catch (IOException e) {
      throw new SafetyViolation("node " + node + ": the LSM does not reopen: " + e);
    }
    LsmCellStore lsm = new LsmCellStore(engine);
    PersistListener cacheListener = PersistListener.NONE;
    reads = lsm;
    if (cached) {
      // Small, so entries are evicted and reloaded during a run.
      CachingCellStore cache = new CachingCellStore(lsm, 4 * 1024);
      reads = cache;
      cacheListener = cache;
    }
    // PersistDone is fed by the simulator once makeDurable returns, so `done` has nothing to do.
    persister =
        new LsmPersister(
            engine,
            cacheListener,
            done -> {},
            error -> {
              throw new SafetyViolation("node " + node + ": LSM write failed: " + error);
            });
  }

  @Override
  public Cell get(Key key) {
    readCount++;
    return reads.get(key);
  }

  @Override
  public java.util.List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
    return reads.keysInRange(fromToken, toToken, after, limit);
  }

  @Override
  public Cell peek(Key key) {
    try {
      return engine.get(key);
    } catch (IOException e) {
      throw new SafetyViolation("node " + node + ": LSM read failed: " + e);
    }
  }

  @Override
  public void makeDurable(Cell delta) {
    write(delta, true);
  }

  @Override
  public void flush() {
    try {
      engine.flush().get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while flushing", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new SafetyViolation("node " + node + ": LSM flush did not complete: " + e);
    }
  }

  @Override
  public void makeVisible(Cell delta) {
    write(delta, false);
  }

  private void write(Cell delta, boolean logged) {
    writeCount++;
    Cell before = peek(delta.key());
    try {
      persister
          .execute(new Effect.Persist(writeCount, delta, logged))
          .get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while persisting", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new SafetyViolation("node " + node + ": LSM write did not complete: " + e);
    }
    Cell after = peek(delta.key());
    Cell expected = NodeStorage.merged(node, before, delta);
    if (!sameState(expected, after)) {
      throw new SafetyViolation(
          "node " + node + ": the LSM holds " + after + " after merging, expected " + expected);
    }
    listener.onDurable(node, before, delta, after, logged);
  }

  /** Equal consensus state; the diagnostic write time may differ. */
  private static boolean sameState(Cell a, Cell b) {
    return b != null
        && a.promised().equals(b.promised())
        && java.util.Objects.equals(a.accepted(), b.accepted())
        && java.util.Objects.equals(a.purge(), b.purge());
  }

  @Override
  public java.util.List<Key> clientKeys() {
    java.util.List<Key> keys = new java.util.ArrayList<>();
    try (io.frsm.lsm.sstable.CellIterator it = engine.scan(Long.MIN_VALUE, Long.MAX_VALUE)) {
      while (it.hasNext()) {
        Key k = it.next().key();
        if (!io.frsm.consensus.core.RangeTerm.isReserved(k)) {
          keys.add(k);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return keys;
  }

  @Override
  public void crash() {
    engine.kill();
    fs.crash();
    open();
  }

  @Override
  public long reads() {
    return readCount;
  }

  @Override
  public long writes() {
    return writeCount;
  }

  @Override
  public void close() {
    engine.kill();
  }
}
