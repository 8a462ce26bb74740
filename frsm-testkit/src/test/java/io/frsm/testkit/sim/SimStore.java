package io.frsm.testkit.sim;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.HashMap;
import java.util.Map;

/**
 * One node's cells in memory. A persist becomes visible only when the simulator completes it
 * ({@link #makeDurable}, {@link #makeVisible}); a crash loses persists not completed, because they
 * were never merged here, and every hint ({@link #makeVisible}): the adversary's choice, as if no
 * memtable holding one was ever flushed. Counts reads and writes, the "LSM reads/writes" of the
 * paper's Table 2.
 */
final class SimStore implements NodeStorage {
  private final int node;
  private final DurableListener listener;

  /** What reads see: every completed persist, hints included. */
  private final Map<Key, Cell> durable = new HashMap<>();

  /** What a crash leaves: the completed logged persists only. */
  private final Map<Key, Cell> logged = new HashMap<>();

  /**
   * The client keys of {@link #durable} in (token, key) order, so a listing pages through a range
   * of a million keys without sorting them all each time.
   */
  private final java.util.TreeSet<Key> sorted = new java.util.TreeSet<>();

  /** Keys whose reads fail, as a quarantined block of the real LSM makes them (issue 23). */
  private final java.util.Set<Key> quarantined = new java.util.HashSet<>();

  private long reads;
  private long writes;

  SimStore(int node, DurableListener listener) {
    this.node = node;
    this.listener = listener;
  }

  @Override
  public Cell get(Key key) {
    reads++;
    if (quarantined.contains(key)) {
      throw new io.frsm.consensus.core.CellStoreException(
          "key " + key + " is quarantined", new java.io.IOException("corrupt block"));
    }
    return durable.get(key);
  }

  /** From now on reads of {@code key} fail, as after a corrupt block of the real LSM. */
  void quarantine(Key key) {
    quarantined.add(key);
  }

  @Override
  public Cell peek(Key key) {
    return durable.get(key);
  }

  /** The client keys this replica holds (reserved range-term cells excluded). */
  @Override
  public java.util.List<Key> clientKeys() {
    return durable.keySet().stream()
        .filter(k -> !io.frsm.consensus.core.RangeTerm.isReserved(k))
        .toList();
  }

  @Override
  public java.util.List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
    Key from = Key.lowestWithToken(fromToken);
    java.util.NavigableSet<Key> tail =
        after != null && after.compareTo(from) >= 0
            ? sorted.tailSet(after, false)
            : sorted.tailSet(from, true);
    java.util.List<Key> page = new java.util.ArrayList<>();
    for (Key k : tail) {
      if (k.token() > toToken || page.size() == limit) {
        break;
      }
      page.add(k);
    }
    return page;
  }

  @Override
  public void crash() {
    // Persists not completed were never merged here; hints are lost.
    durable.clear();
    durable.putAll(logged);
    sorted.clear();
    durable.keySet().forEach(this::index);
  }

  @Override
  public long reads() {
    return reads;
  }

  @Override
  public long writes() {
    return writes;
  }

  @Override
  public void close() {}

  @Override
  public void makeDurable(Cell delta) {
    logged.put(delta.key(), merge(logged.get(delta.key()), delta));
    apply(delta, true);
  }

  @Override
  public void flush() {
    logged.clear();
    logged.putAll(durable);
  }

  @Override
  public void makeVisible(Cell delta) {
    apply(delta, false);
  }

  private void apply(Cell delta, boolean isLogged) {
    writes++;
    Cell before = durable.get(delta.key());
    Cell after = merge(before, delta);
    if (durable.put(delta.key(), after) == null) {
      index(delta.key());
    }
    listener.onDurable(node, before, delta, after, isLogged);
  }

  private void index(Key key) {
    if (!io.frsm.consensus.core.RangeTerm.isReserved(key)) {
      sorted.add(key);
    }
  }

  private Cell merge(Cell before, Cell delta) {
    return NodeStorage.merged(node, before, delta);
  }
}
