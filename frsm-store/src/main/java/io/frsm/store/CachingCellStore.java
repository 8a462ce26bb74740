package io.frsm.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The clock cache (docs/DESIGN.md "LSM"): a Caffeine cache of each key's merged cell (its clock and
 * value, or "nothing stored") in front of a {@link CellStore}, bounded by weight in bytes.
 *
 * <p><b>Coherence.</b> Every persist the node completes passes through {@link #persisted} before
 * the core hears of it (see {@link LsmPersister}), and merges the delta into the cached cell with
 * the same join the store applies. A miss loads the store's cell inside Caffeine's per-key compute,
 * and {@code persisted} updates inside the same per-key compute, so the two never interleave: if
 * the load already saw the delta, merging it again changes nothing (the join is idempotent);
 * otherwise the merge adds it. A failed persist drops the key ({@link #persistFailed}). So a cached
 * cell always equals the store's, and no stale clock is ever served.
 *
 * <p><b>Bypass.</b> Cells that reach the store without a persist — SSTable import at a leadership
 * handoff, bulk copy — would make cached cells stale. Between {@link #beginBypass()} and {@link
 * #endBypass()} every read goes to the store and nothing is cached; both bump a generation that
 * hides every entry cached before, so a load racing with either never serves pre-import state.
 *
 * <p>One exception, safe by construction: when compaction drops a purged key (delete phase 2 past
 * its grace period), a cached cell may still show the delete and its promise. That is the state the
 * drop forgot, so the core behaves as if the drop had not happened yet.
 *
 * <p>Cached cells include the commits' hints the node persisted without a commit-log record
 * (docs/PROTOCOL.md "Commits are hints"), exactly as the store's memtable does.
 *
 * <p>Thread-safe: the core's thread reads and loads, commit-log threads merge persisted deltas,
 * callers' threads read hits only ({@link #getIfCached}). Eviction runs on the calling thread (no
 * executor of Caffeine's own), so a single-threaded driver — the simulator — stays deterministic.
 */
public final class CachingCellStore implements CellStore, PersistListener {
  /** Approximate bytes of a cache entry besides key and cell (node, record, references). */
  static final int ENTRY_OVERHEAD_BYTES = 64;

  private final CellStore store;
  private final Cache<Key, Clock> cache;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private volatile boolean bypass;
  private volatile long generation;

  /** A cached cell ({@code null}: the store holds nothing for the key) and its generation. */
  private record Clock(Cell cell, long generation) {}

  /**
   * @param store the store behind the cache (the node's LSM)
   * @param maximumWeightBytes the cache's bound: keys, cells and entry overhead, approximately
   */
  public CachingCellStore(CellStore store, long maximumWeightBytes) {
    this.store = Objects.requireNonNull(store, "store");
    if (maximumWeightBytes < 0) {
      throw new IllegalArgumentException(
          "maximumWeightBytes must be >= 0, was " + maximumWeightBytes);
    }
    this.cache =
        Caffeine.newBuilder()
            .maximumWeight(maximumWeightBytes)
            .weigher((Key key, Clock clock) -> weightBytes(key, clock.cell()))
            .executor(Runnable::run)
            .build();
  }

  static int weightBytes(Key key, Cell cell) {
    long bytes = ENTRY_OVERHEAD_BYTES + key.length() + (cell == null ? 0 : cell.heapBytes());
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  @Override
  public Cell get(Key key) {
    if (bypass) {
      return store.get(key);
    }
    long current = generation;
    Clock cached = cache.getIfPresent(key);
    if (cached != null && cached.generation() == current) {
      hits.increment();
      return cached.cell();
    }
    misses.increment();
    Clock loaded =
        cache
            .asMap()
            .compute(
                key,
                (k, old) ->
                    old != null && old.generation() == current
                        ? old
                        : new Clock(store.get(k), current));
    return loaded.cell();
  }

  /**
   * The cached cell of {@code key} ({@code null}: cached as "nothing stored"), or {@code notCached}
   * if the cache does not hold it (or is bypassed): never reads the store, so never waits for a
   * disk. For readers that must not block (CallerThreadReads on Netty event loops).
   */
  public Cell getIfCached(Key key, Cell notCached) {
    if (bypass) {
      return notCached;
    }
    long current = generation;
    Clock cached = cache.getIfPresent(key);
    if (cached != null && cached.generation() == current) {
      hits.increment();
      return cached.cell();
    }
    return notCached;
  }

  /**
   * Listings are not cached: a scan reads each page once. The store lists keys without reading
   * their cells, so a listing neither fills nor consults the cache.
   */
  @Override
  public java.util.List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
    return store.keysInRange(fromToken, toToken, after, limit);
  }

  @Override
  public void persisted(Cell delta) {
    cache
        .asMap()
        .computeIfPresent(
            delta.key(),
            (k, old) ->
                new Clock(
                    old.cell() == null ? delta : CellMerge.merge(old.cell(), delta),
                    old.generation()));
  }

  @Override
  public void persistFailed(Cell delta) {
    cache.invalidate(delta.key());
  }

  /** From now on reads go to the store and nothing is cached (the node imports SSTables). */
  public void beginBypass() {
    bypass = true;
    generation++;
    cache.invalidateAll();
  }

  /** The import finished: cache again, starting empty. */
  public void endBypass() {
    generation++;
    cache.invalidateAll();
    bypass = false;
  }

  public boolean bypassing() {
    return bypass;
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  /** The cache's weight now, after pending evictions ran. */
  public long weightedSizeBytes() {
    cache.cleanUp();
    return cache.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
