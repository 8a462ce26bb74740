package io.frsm.lsm.memtable;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.MergeConflictListener;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Cells of distinct keys in key order, each key's cells already combined with the merge join; their
 * tokens sit in a parallel array so that ordering and merging runs compare tokens without touching
 * the cells (keys are compared only when tokens tie).
 *
 * <p>Immutable once built; the arrays may be longer than {@link #size()}.
 */
final class SortedRun {
  private static final Comparator<Cell> BY_KEY = (a, b) -> a.key().compareTo(b.key());

  static final SortedRun EMPTY = new SortedRun(new Cell[0], new long[0], 0, 0);

  private final Cell[] cells;
  private final long[] tokens;
  private final int size;
  private final long heapBytes;

  private SortedRun(Cell[] cells, long[] tokens, int size, long heapBytes) {
    this.cells = cells;
    this.tokens = tokens;
    this.size = size;
    this.heapBytes = heapBytes;
  }

  /**
   * Sorts {@code cells[0 .. count-1]} (any order, keys may repeat) into a run, merging the cells of
   * each key. {@code tokens[i]} must be {@code cells[i].key().token()} and {@code heapBytes} the
   * sum of the cells' {@link Cell#heapBytes()}. The input arrays are not modified.
   */
  static SortedRun sortAndFold(
      Cell[] cells, long[] tokens, int count, long heapBytes, MergeConflictListener conflicts) {
    int[] order = TokenSort.order(tokens, count);
    Cell[] outCells = new Cell[count];
    long[] outTokens = new long[count];
    int out = 0;
    long bytes = heapBytes;
    for (int i = 0; i < count; ) {
      long token = tokens[order[i]];
      int end = i + 1;
      while (end < count && tokens[order[end]] == token) {
        end++;
      }
      if (end == i + 1) {
        outCells[out] = cells[order[i]];
        outTokens[out++] = token;
      } else {
        // Records of one key, or (rarely) keys sharing a token: order by key, merge equal keys.
        Cell[] group = new Cell[end - i];
        for (int g = 0; g < group.length; g++) {
          group[g] = cells[order[i + g]];
        }
        Arrays.sort(group, BY_KEY);
        Cell folded = group[0];
        for (int g = 1; g < group.length; g++) {
          if (group[g].key().equals(folded.key())) {
            Cell merged = CellMerge.merge(folded, group[g], conflicts);
            bytes += merged.heapBytes() - folded.heapBytes() - group[g].heapBytes();
            folded = merged;
          } else {
            outCells[out] = folded;
            outTokens[out++] = token;
            folded = group[g];
          }
        }
        outCells[out] = folded;
        outTokens[out++] = token;
      }
      i = end;
    }
    return new SortedRun(outCells, outTokens, out, bytes);
  }

  /** The run holding both runs' keys; a key in both gets the merge join of its two cells. */
  static SortedRun merge(SortedRun a, SortedRun b, MergeConflictListener conflicts) {
    if (a.size == 0) {
      return b;
    }
    if (b.size == 0) {
      return a;
    }
    Cell[] outCells = new Cell[a.size + b.size];
    long[] outTokens = new long[a.size + b.size];
    int i = 0;
    int j = 0;
    int out = 0;
    long bytes = a.heapBytes + b.heapBytes;
    while (i < a.size && j < b.size) {
      int c = Long.compare(a.tokens[i], b.tokens[j]);
      if (c == 0) {
        c = a.cells[i].key().compareTo(b.cells[j].key());
      }
      if (c < 0) {
        outTokens[out] = a.tokens[i];
        outCells[out++] = a.cells[i++];
      } else if (c > 0) {
        outTokens[out] = b.tokens[j];
        outCells[out++] = b.cells[j++];
      } else {
        Cell merged = CellMerge.merge(a.cells[i], b.cells[j], conflicts);
        bytes += merged.heapBytes() - a.cells[i].heapBytes() - b.cells[j].heapBytes();
        outTokens[out] = a.tokens[i];
        outCells[out++] = merged;
        i++;
        j++;
      }
    }
    while (i < a.size) {
      outTokens[out] = a.tokens[i];
      outCells[out++] = a.cells[i++];
    }
    while (j < b.size) {
      outTokens[out] = b.tokens[j];
      outCells[out++] = b.cells[j++];
    }
    return new SortedRun(outCells, outTokens, out, bytes);
  }

  int size() {
    return size;
  }

  /** The sum of the cells' {@link Cell#heapBytes()}. */
  long heapBytes() {
    return heapBytes;
  }

  /** A read-only sorted map view of the run, each cell in a fresh memtable slot. */
  SortedCellMap<CellSlot> asSlotMap() {
    return new SortedCellMap<>(cells, 0, size, CellSlot::new);
  }
}
