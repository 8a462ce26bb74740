package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;

/**
 * The synchronous read seam between the core and a node's storage. Reads see durable state only:
 * every persist the core asked for is visible once, and only once, the driver fed back its {@link
 * Input.PersistDone}. The core never reads a key while a persist of that key is in flight, so a
 * read always sees the key's latest state.
 */
@FunctionalInterface
public interface CellStore {
  /**
   * The key's merged durable cell, or null if this replica holds nothing for it.
   *
   * @throws CellStoreException if the key cannot be read; never return null for that
   */
  Cell get(Key key);

  /**
   * The accepted part of the key's merged durable cell, or null if this replica holds none.
   *
   * @throws CellStoreException if the key cannot be read
   */
  default io.frsm.cell.AcceptedValue accepted(Key key) {
    Cell cell = get(key);
    return cell == null ? null : cell.accepted();
  }

  /**
   * Up to {@code limit} client keys (range-term cells excluded) this replica holds with {@code
   * fromToken <= token <= toToken}, in (token, key) order, after {@code after} (null: from the
   * start). Used by a new range holder's scan; sees durable state like {@link #get}.
   *
   * <p>The default refuses: a store that cannot list keys answers scans like a crashed replica
   * (stays silent), so a scan then needs {@code q} other replicas.
   *
   * @throws CellStoreException if the keys cannot be read
   */
  default java.util.List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
    throw new CellStoreException("this store cannot list keys", null);
  }
}
