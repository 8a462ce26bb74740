package io.frsm.consensus.sim;

import io.frsm.consensus.core.CellStore;
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
final class SimStore implements CellStore {
  interface DurableListener {
    void onDurable(int node, Cell before, Cell delta, Cell after);
  }

  private final int node;
  private final DurableListener listener;
  private final Map<Key, Cell> durable = new HashMap<>();
  long reads;
  long writes;

  SimStore(int node, DurableListener listener) {
    this.node = node;
    this.listener = listener;
  }

  @Override
  public Cell get(Key key) {
    reads++;
    return durable.get(key);
  }

  /** The durable cell without counting a read (for checkers and tests). */
  Cell peek(Key key) {
    return durable.get(key);
  }

  /** The client keys this replica holds (reserved range-term cells excluded). */
  java.util.List<Key> clientKeys() {
    return durable.keySet().stream()
        .filter(k -> !io.frsm.consensus.core.RangeTerm.isReserved(k))
        .toList();
  }

  void makeDurable(Cell delta) {
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
