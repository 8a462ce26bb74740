package io.frsm.consensus.sim;

import io.frsm.lsm.cell.Cell;
import io.frsm.lsm.cell.CellMerge;
import io.frsm.lsm.cell.Key;
import java.util.HashMap;
import java.util.Map;

/**
 * One node's durable cells in memory. A persist becomes visible only when the simulator completes
 * it ({@link #makeDurable}); a crash loses persists not completed, because they were never merged
 * here. Counts reads and writes, the "LSM reads/writes" of the paper's Table 2.
 */
final class SimStore implements NodeStorage {
  private final int node;
  private final DurableListener listener;
  private final Map<Key, Cell> durable = new HashMap<>();
  private long reads;
  private long writes;

  SimStore(int node, DurableListener listener) {
    this.node = node;
    this.listener = listener;
  }

  @Override
  public Cell get(Key key) {
    reads++;
    return durable.get(key);
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
    return durable.keySet().stream()
        .filter(k -> !io.frsm.consensus.core.RangeTerm.isReserved(k))
        .filter(k -> k.token() >= fromToken && k.token() <= toToken)
        .filter(k -> after == null || k.compareTo(after) > 0)
        .sorted()
        .limit(limit)
        .toList();
  }

  @Override
  public void crash() {
    // Only completed persists were ever merged here: nothing to lose.
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
    writes++;
    Cell before = durable.get(delta.key());
    Cell after =
        before == null
            ? delta
            : CellMerge.merge(
                before,
                delta,
                (k, kept, dropped) -> {
                  throw new SafetyViolation(
                      "node "
                          + node
                          + " key "
                          + k
                          + ": one ballot, one instance, two values: "
                          + kept
                          + " / "
                          + dropped);
                });
    durable.put(delta.key(), after);
    listener.onDurable(node, before, delta, after);
  }
}
