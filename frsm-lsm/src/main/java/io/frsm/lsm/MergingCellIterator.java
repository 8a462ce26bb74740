package io.frsm.lsm;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.MergeConflictListener;
import io.frsm.lsm.sstable.CellIterator;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A k-way merge of sorted cell sources into one sorted stream with one cell per key, combining the
 * cells of a key with the merge join. Because the join is order-free, sources need no priority.
 * Used by scans, flush-free exports and compaction. Not thread-safe.
 */
final class MergingCellIterator implements CellIterator {

  private static final class Head {
    final CellIterator source;
    Cell cell;

    Head(CellIterator source, Cell cell) {
      this.source = source;
      this.cell = cell;
    }
  }

  private final List<CellIterator> sources;
  private final PriorityQueue<Head> heap =
      new PriorityQueue<>((a, b) -> a.cell.key().compareTo(b.cell.key()));
  private final MergeConflictListener conflicts;
  private final Runnable onClose;
  private boolean closed;

  MergingCellIterator(List<CellIterator> sources, MergeConflictListener conflicts, Runnable onClose)
      throws IOException {
    this.sources = List.copyOf(sources);
    this.conflicts = conflicts;
    this.onClose = onClose;
    try {
      for (CellIterator s : this.sources) {
        if (s.hasNext()) {
          heap.add(new Head(s, s.next()));
        }
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Adapts a memtable's iterator (in memory, cannot fail). */
  static CellIterator of(Iterator<Cell> cells) {
    return new CellIterator() {
      @Override
      public boolean hasNext() {
        return cells.hasNext();
      }

      @Override
      public Cell next() {
        return cells.next();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public boolean hasNext() {
    return !heap.isEmpty();
  }

  @Override
  public Cell next() throws IOException {
    Head head = heap.poll();
    if (head == null) {
      throw new NoSuchElementException();
    }
    Cell result = head.cell;
    advance(head);
    while (!heap.isEmpty() && heap.peek().cell.key().equals(result.key())) {
      Head same = heap.poll();
      result = CellMerge.merge(result, same.cell, conflicts);
      advance(same);
    }
    return result;
  }

  private void advance(Head head) throws IOException {
    if (head.source.hasNext()) {
      Cell next = head.source.next();
      assert next.key().compareTo(head.cell.key()) > 0 : "source out of order at " + next.key();
      head.cell = next;
      heap.add(head);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (CellIterator s : sources) {
      s.close();
    }
    onClose.run();
  }
}
