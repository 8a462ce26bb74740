package io.frsm.lsm.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.cell.MergeConflictListener;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemtableTest {

  private static Cell accepted(Key key, long t, int node) {
    return Cell.accepted(
        key, AcceptedValue.live(1, t, new Ballot(t + 1, node, 0), new byte[] {(byte) t}, false), 0);
  }

  @Test
  void concurrentWritersOfOneKey_convergeToTheJoin() throws Exception {
    Memtable m = new Memtable(1, 0, MergeConflictListener.LOG);
    Key key = Key.of(new byte[] {'k'});
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> futures = new ArrayList<>();
    List<Cell> all = new ArrayList<>();
    for (int t = 0; t < 400; t++) {
      all.add(accepted(key, t, t % 3));
    }
    for (int w = 0; w < 4; w++) {
      int first = w;
      futures.add(
          pool.submit(
              () -> {
                for (int i = first; i < all.size(); i += 4) {
                  m.merge(all.get(i));
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    Cell expected = all.get(0);
    for (Cell c : all) {
      expected = CellMerge.merge(expected, c);
    }
    assertEquals(expected, m.get(key));
    assertEquals(1, m.cellCount());
    assertEquals(
        expected.heapBytes() + CellSlot.HEAP_BYTES + Memtable.INDEX_ENTRY_HEAP_BYTES,
        m.heapBytes());
  }

  @Test
  void concurrentWritersOfNewAndExistingKeys_accountEveryCellOnce() throws Exception {
    Memtable m = new Memtable(1, 0, MergeConflictListener.LOG);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int writer = w;
      futures.add(
          pool.submit(
              () -> {
                // Each writer inserts 500 keys, half of them shared with the next writer.
                for (int i = 0; i < 500; i++) {
                  int k = writer * 250 + i;
                  m.merge(accepted(Key.of(new byte[] {(byte) (k >> 8), (byte) k}), k, writer));
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    assertEquals(1250, m.cellCount());
    // One slot and one index entry per key.
    long held = 1250 * (CellSlot.HEAP_BYTES + Memtable.INDEX_ENTRY_HEAP_BYTES);
    for (Iterator<Cell> it = m.iterator(null, null); it.hasNext(); ) {
      Cell c = it.next();
      held += c.heapBytes();
      assertSame(c, m.get(c.key()), "the index and the skip list share the key's slot");
    }
    assertEquals(held, m.heapBytes());
    assertEquals(1250, m.indexedCount(), "every key indexed once");
  }

  @Test
  void iterator_returnsKeysInTokenOrderWithinBounds() {
    Memtable m = new Memtable(1, 0, MergeConflictListener.LOG);
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Key k = Key.of(("key" + i).getBytes());
      keys.add(k);
      m.merge(Cell.promise(k, new Ballot(1, 0, 0), 0));
    }
    keys.sort(null);
    Key from = keys.get(10);
    Key to = keys.get(20);
    List<Key> seen = new ArrayList<>();
    for (Iterator<Cell> it = m.iterator(from, to); it.hasNext(); ) {
      seen.add(it.next().key());
    }
    assertEquals(keys.subList(10, 20), seen);
  }

  @Test
  void drained_completesOnlyAfterFrozenAndAllWritersReleased() {
    Memtable m = new Memtable(1, 0, MergeConflictListener.LOG);
    m.admitWriter();
    m.admitWriter();
    m.freeze();
    assertFalse(m.drained().isDone());
    m.releaseWriter();
    assertFalse(m.drained().isDone());
    m.releaseWriter();
    assertTrue(m.drained().isDone());
  }

  @Test
  void emptyFrozenMemtable_isDrainedAtOnce() {
    Memtable m = new Memtable(1, 0, MergeConflictListener.LOG);
    m.freeze();
    assertTrue(m.drained().isDone());
  }
}
