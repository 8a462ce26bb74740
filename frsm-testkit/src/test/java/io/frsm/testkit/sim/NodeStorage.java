package io.frsm.testkit.sim;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;

/**
 * One simulated node's durable cells, behind the core's {@link CellStore} read seam. The simulator
 * calls {@link #makeDurable} when a persist completes and {@link #crash} when the node crashes;
 * whatever was made durable survives, nothing else.
 */
interface NodeStorage extends CellStore {
  /** Merges {@code delta} durably; visible to {@link #get} on return. */
  void makeDurable(Cell delta);

  /**
   * Merges {@code delta} as a hint (an unlogged persist): visible to {@link #get} on return, lost
   * by {@link #crash} unless the store made it durable meanwhile (a memtable flush).
   */
  void makeVisible(Cell delta);

  /**
   * Makes every cell visible now durable, hints included, as a memtable flush does: a later {@link
   * #crash} keeps them. Returns once they are durable.
   */
  void flush();

  /** The durable cell without counting a read (for checkers and tests). */
  Cell peek(Key key);

  /** The client keys this replica holds (reserved range-term cells excluded), in key order. */
  java.util.List<Key> clientKeys();

  /** The node crashed: drop everything not durable and come back with what is. */
  void crash();

  /** Reads through {@link #get} so far (the "LSM reads" of the paper's Table 2). */
  long reads();

  /** Persists completed so far (the "LSM writes"). */
  long writes();

  /** Releases files and threads at the end of a run. */
  void close();

  /**
   * {@code before} joined with {@code delta} (the store's merge); a second value at one ballot and
   * instance is a {@link SafetyViolation} naming node {@code node}.
   */
  static Cell merged(int node, Cell before, Cell delta) {
    return before == null
        ? delta
        : io.frsm.cell.CellMerge.merge(
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
  }

  /**
   * Called with every completed persist, for the checkers: {@code logged} false for a hint, which
   * reads see at once but a crash may lose.
   */
  interface DurableListener {
    void onDurable(int node, Cell before, Cell delta, Cell after, boolean logged);
  }
}
