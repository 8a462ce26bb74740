package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import java.io.IOException;

/**
 * Keys in key order, without their cells: the listing's counterpart of {@link CellIterator}, with
 * the same contract. Not thread-safe. {@link io.frsm.lsm.CorruptionException} from {@link #hasNext}
 * or {@link #next} means the iteration cannot go on; no key of a damaged block is ever returned.
 */
public interface KeyIterator extends AutoCloseable {
  boolean hasNext() throws IOException;

  /**
   * @throws java.util.NoSuchElementException if {@link #hasNext} is false
   */
  Key next() throws IOException;

  @Override
  void close();
}
