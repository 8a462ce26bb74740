package io.frsm.lsm.memtable;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.cell.MergeConflictListener;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory, sorted, concurrently writable part of the LSM: one cell per key, updated with the
 * merge join on every write (merge-on-write), so a flush writes exactly one cell per key.
 *
 * <p>Lifecycle: ACTIVE (takes writes) → frozen by the engine when it switches memtables (no new
 * writers can join; writers already admitted finish) → flushed → released. Reads see it until its
 * SSTable is published. Thread-safe.
 *
 * <p>Two maps share the same slots: the skip list keeps keys in order for flushes and scans, and a
 * hash index finds a present key's slot without walking the skip list (profiled: the walk, a
 * pointer chase per level, took about a third of frsm's Java CPU under the paper's workload, most
 * of it rewriting keys already present). A key enters the skip list first, then the index; a writer
 * or reader that misses the index falls back to the skip list, so the short lag between the two is
 * harmless.
 */
public final class Memtable {
  private final long id;
  private final long createdAtMs;
  private final ConcurrentSkipListMap<Key, CellSlot> cells;
  private final ConcurrentHashMap<Key, CellSlot> index;
  private final AtomicLong heapBytes;
  private final AtomicInteger pendingWriters = new AtomicInteger();
  private final MergeConflictListener conflicts;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private volatile boolean frozen;

  /** A hash-index entry (node, table slot share); estimated like {@link CellSlot#HEAP_BYTES}. */
  static final long INDEX_ENTRY_HEAP_BYTES = 40;

  public Memtable(long id, long createdAtMs, MergeConflictListener conflicts) {
    this(id, createdAtMs, conflicts, new ConcurrentSkipListMap<>(), 0);
  }

  /**
   * An active memtable already holding {@code sorted} (distinct keys): the skip list is linked from
   * the sorted input in one pass. {@code cellHeapBytes} is the sum of the cells' {@link
   * Cell#heapBytes()}. For {@link MemtableLoader}.
   */
  static Memtable ofSorted(
      long id,
      long createdAtMs,
      MergeConflictListener conflicts,
      SortedMap<Key, CellSlot> sorted,
      long cellHeapBytes) {
    long heapBytes = cellHeapBytes + sorted.size() * (CellSlot.HEAP_BYTES + INDEX_ENTRY_HEAP_BYTES);
    return new Memtable(id, createdAtMs, conflicts, new ConcurrentSkipListMap<>(sorted), heapBytes);
  }

  private Memtable(
      long id,
      long createdAtMs,
      MergeConflictListener conflicts,
      ConcurrentSkipListMap<Key, CellSlot> cells,
      long heapBytes) {
    this.id = id;
    this.createdAtMs = createdAtMs;
    this.conflicts = conflicts;
    this.cells = cells;
    this.index = new ConcurrentHashMap<>(Math.max(16, cells.size() * 4 / 3 + 1));
    this.index.putAll(cells);
    this.heapBytes = new AtomicLong(heapBytes);
  }

  public long id() {
    return id;
  }

  public long createdAtMs() {
    return createdAtMs;
  }

  /**
   * Merges {@code cell} into the key's state. Lock-free; retries when it races another writer.
   *
   * <p>A present key's slot comes from the hash index and its cell is replaced by compare-and-set;
   * a new key takes one walk down the skip list ({@code putIfAbsent}, which returns the slot a
   * racing writer inserted first) and is then indexed.
   */
  public void merge(Cell cell) {
    CellSlot slot = index.get(cell.key());
    if (slot == null) {
      CellSlot fresh = new CellSlot(cell);
      slot = cells.putIfAbsent(cell.key(), fresh);
      if (slot == null) {
        index.put(cell.key(), fresh);
        heapBytes.addAndGet(cell.heapBytes() + CellSlot.HEAP_BYTES + INDEX_ENTRY_HEAP_BYTES);
        return;
      }
    }
    while (true) {
      Cell old = slot.cell();
      Cell merged = CellMerge.merge(old, cell, conflicts);
      if (merged == old) {
        return;
      }
      if (slot.compareAndSet(old, merged)) {
        heapBytes.addAndGet(merged.heapBytes() - old.heapBytes());
        return;
      }
    }
  }

  /** Keys in the hash index (equal to {@link #cellCount()} once no write is in flight). */
  int indexedCount() {
    return index.size();
  }

  /** The key's merged state in this memtable, or null. */
  public Cell get(Key key) {
    CellSlot slot = index.get(key);
    if (slot == null) {
      slot = cells.get(key); // inserted a moment ago and not yet indexed, or absent
    }
    return slot == null ? null : slot.cell();
  }

  /** Cells with {@code from <= key < to} in key order; null bounds are open. Weakly consistent. */
  public Iterator<Cell> iterator(Key from, Key to) {
    NavigableMap<Key, CellSlot> view = cells;
    if (from != null && to != null) {
      view = cells.subMap(from, true, to, false);
    } else if (from != null) {
      view = cells.tailMap(from, true);
    } else if (to != null) {
      view = cells.headMap(to, false);
    }
    Iterator<CellSlot> slots = view.values().iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return slots.hasNext();
      }

      @Override
      public Cell next() {
        return slots.next().cell();
      }
    };
  }

  /**
   * The keys of {@link #iterator}'s cells, without reading the cells: for listings. The same keys,
   * because a key enters the map with its first cell and never leaves it.
   */
  public Iterator<Key> keys(Key from, Key to) {
    NavigableMap<Key, CellSlot> view = cells;
    if (from != null && to != null) {
      view = cells.subMap(from, true, to, false);
    } else if (from != null) {
      view = cells.tailMap(from, true);
    } else if (to != null) {
      view = cells.headMap(to, false);
    }
    return view.navigableKeySet().iterator();
  }

  /** Estimated heap bytes held. */
  public long heapBytes() {
    return heapBytes.get();
  }

  public int cellCount() {
    return cells.size();
  }

  public boolean isEmpty() {
    return cells.isEmpty();
  }

  /**
   * Admits a writer whose commit-log record was appended while this memtable was active; it merges
   * once the record is durable. REQUIRES: called under the engine's switch lock (read side).
   */
  public void admitWriter() {
    assert !frozen : "writer admitted to a frozen memtable";
    pendingWriters.incrementAndGet();
  }

  /** The admitted writer is done (merged, or its record failed). */
  public void releaseWriter() {
    int left = pendingWriters.decrementAndGet();
    assert left >= 0 : "more releases than admissions";
    if (left == 0 && frozen) {
      drained.complete(null);
    }
  }

  /**
   * No writer will be admitted any more. REQUIRES: called under the engine's switch lock (write
   * side), so no admission races it.
   */
  public void freeze() {
    frozen = true;
    if (pendingWriters.get() == 0) {
      drained.complete(null);
    }
  }

  /** Completes once frozen and every admitted writer has merged: the memtable is final. */
  public CompletableFuture<Void> drained() {
    return drained;
  }

  /** Writers admitted and not yet released: a frozen memtable is flushed only at zero. */
  public int pendingWriters() {
    return pendingWriters.get();
  }

  @Override
  public String toString() {
    return "Memtable{id=" + id + ", cells=" + cells.size() + ", bytes=" + heapBytes.get() + "}";
  }
}
