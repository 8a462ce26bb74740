package io.frsm.store;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;
import io.frsm.consensus.core.CellStoreException;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.sstable.KeyIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The core's read seam over the real LSM: {@link LsmEngine#get} sees only durable state (a write
 * reaches the memtable after its commit-log sync), which is what {@link CellStore} requires.
 *
 * <p>An {@link IOException} from the engine — a {@link io.frsm.lsm.QuarantinedRangeException} for a
 * key in a corrupt table's range, or a read error — becomes a {@link CellStoreException} naming the
 * key and the cause. The core then treats this replica as failed for that input (see {@link
 * CellStoreException}); {@link #readFailures()} counts them for the node's metrics.
 *
 * <p>Thread-safe as the engine is.
 */
public final class LsmCellStore implements CellStore {
  private final LsmEngine engine;
  private final LongAdder readFailures = new LongAdder();

  public LsmCellStore(LsmEngine engine) {
    this.engine = Objects.requireNonNull(engine, "engine");
  }

  /**
   * A read failure is a {@link CellStoreException} (counted). A closed engine is not a read
   * failure: its {@link IllegalStateException} passes through and stops the core for good, as it
   * should — nothing this node stores can be read any more.
   */
  @Override
  public Cell get(Key key) {
    try {
      return engine.get(key);
    } catch (IOException e) {
      readFailures.increment();
      throw new CellStoreException(
          "cannot read key " + key + " from the local LSM: " + e.getMessage(), e);
    }
  }

  /**
   * A range scan's page over the engine's merged view (memtables and tables); reserved range-term
   * cells are skipped. Reads at most {@code limit} client keys past the cursor.
   *
   * <p>Lists through {@link LsmEngine#scanKeys}, which reads keys without decoding cells: a page
   * needs no values, and decoding them was a tenth of a membership settle's allocations (issue 22).
   * It lists exactly the keys {@link LsmEngine#scan} has cells for, deletes, promises and purge
   * marks included (a key left out is one the settle never reads), and fails where the scan fails.
   */
  @Override
  public List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
    long start = after == null ? fromToken : Math.max(fromToken, after.token());
    List<Key> keys = new ArrayList<>(Math.min(limit, 1024));
    if (start > toToken) {
      return keys;
    }
    try (KeyIterator it = engine.scanKeys(start, toToken)) {
      while (keys.size() < limit && it.hasNext()) {
        Key k = it.next();
        if ((after == null || k.compareTo(after) > 0) && !RangeTerm.isReserved(k)) {
          keys.add(k);
        }
      }
      return keys;
    } catch (IOException e) {
      readFailures.increment();
      throw new CellStoreException(
          "cannot list keys in tokens [" + start + ", " + toToken + "]: " + e.getMessage(), e);
    }
  }

  /** Reads that failed so far. */
  public long readFailures() {
    return readFailures.sum();
  }
}
