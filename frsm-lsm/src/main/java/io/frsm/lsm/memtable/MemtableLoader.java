package io.frsm.lsm.memtable;

import io.frsm.cell.Cell;
import io.frsm.cell.MergeConflictListener;
import java.util.Arrays;
import java.util.Objects;

/**
 * Builds a memtable from cells that arrive in any order, keys repeating: a commit-log replay.
 *
 * <p>Inserting replayed cells one by one into the skip list costs a chain of cache misses per cell
 * (a random key lands anywhere in a list of hundreds of thousands), which made replay CPU-bound at
 * well under 200 MB/s. The loader instead gathers cells in arrays, sorts each batch by token (a
 * radix sort over a primitive array), merges the cells of each key with the merge join, merges the
 * sorted batches, and finally links the skip list from the sorted result in one pass. The result
 * equals merging every cell into an empty memtable, in any order: the merge join is commutative,
 * associative and idempotent.
 *
 * <p>Memory: a batch is sealed (sorted and folded) once its cells hold {@link
 * #MIN_BATCH_HEAP_BYTES} or as much as everything sealed before, whichever is more, so a log that
 * rewrites a few keys many times holds at most about twice the final memtable plus 64 MiB, never
 * the whole log; and since batches at least double, merging them costs O(log) passes over the
 * cells.
 *
 * <p>Not thread-safe: one replaying thread adds, then builds once.
 */
public final class MemtableLoader {
  /** The smallest batch (by {@link Cell#heapBytes()}) sorted at once. */
  static final long MIN_BATCH_HEAP_BYTES = 64L << 20;

  private static final int MAX_BATCH_CELLS = 1 << 28;

  private final MergeConflictListener conflicts;
  private final long minBatchHeapBytes;
  private Cell[] batch = new Cell[1024];
  private long[] tokens = new long[1024];
  private int batchCount;
  private long batchHeapBytes;
  private SortedRun sealed = SortedRun.EMPTY;
  private boolean built;

  public MemtableLoader(MergeConflictListener conflicts) {
    this(conflicts, MIN_BATCH_HEAP_BYTES);
  }

  /** With a smaller minimum batch, so that tests cover several batches with few cells. */
  MemtableLoader(MergeConflictListener conflicts, long minBatchHeapBytes) {
    this.conflicts = Objects.requireNonNull(conflicts, "conflicts");
    if (minBatchHeapBytes <= 0) {
      throw new IllegalArgumentException(
          "minBatchHeapBytes must be positive: " + minBatchHeapBytes);
    }
    this.minBatchHeapBytes = minBatchHeapBytes;
  }

  /** Adds one cell; it is merged with every other cell of its key. */
  public void add(Cell cell) {
    if (built) {
      throw new IllegalStateException("the memtable was already built");
    }
    if (batchCount == batch.length) {
      int grown = batch.length * 2;
      batch = Arrays.copyOf(batch, grown);
      tokens = Arrays.copyOf(tokens, grown);
    }
    batch[batchCount] = cell;
    tokens[batchCount] = cell.key().token();
    batchCount++;
    batchHeapBytes += cell.heapBytes();
    if (batchHeapBytes >= Math.max(minBatchHeapBytes, sealed.heapBytes())
        || batchCount == MAX_BATCH_CELLS) {
      sealBatch();
    }
  }

  private void sealBatch() {
    SortedRun run = SortedRun.sortAndFold(batch, tokens, batchCount, batchHeapBytes, conflicts);
    sealed = SortedRun.merge(sealed, run, conflicts);
    Arrays.fill(batch, 0, batchCount, null); // the run holds what is still needed
    batchCount = 0;
    batchHeapBytes = 0;
  }

  /** The memtable holding the merge of every added cell, per key. Call once. */
  public Memtable build(long id, long createdAtMs) {
    if (built) {
      throw new IllegalStateException("the memtable was already built");
    }
    sealBatch();
    built = true;
    batch = null;
    tokens = null;
    SortedRun all = sealed;
    sealed = null;
    return Memtable.ofSorted(id, createdAtMs, conflicts, all.asSlotMap(), all.heapBytes());
  }
}
