package io.frsm.lsm.sstable;

import io.frsm.cell.Cell;
import java.io.IOException;

/**
 * Cells in key order. Not thread-safe: one iterator per thread (a reader hands out any number).
 * {@link io.frsm.lsm.CorruptionException} from {@link #hasNext} or {@link #next} means the
 * iteration cannot go on; no cell of a damaged block is ever returned.
 */
public interface CellIterator extends AutoCloseable {
  boolean hasNext() throws IOException;

  /**
   * @throws java.util.NoSuchElementException if {@link #hasNext} is false
   */
  Cell next() throws IOException;

  @Override
  void close();
}
