package io.frsm.lsm.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellArbitraries;
import io.frsm.cell.Key;
import io.frsm.cell.MergeConflictListener;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class MemtableLoaderTest {
  private static final int KEYS = 12;

  private static final MergeConflictListener FAIL_ON_CONFLICT =
      (key, kept, dropped) -> {
        throw new AssertionError("unexpected conflict " + kept + " / " + dropped);
      };

  private static Key key(int i) {
    return Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
  }

  private static Cell withKey(Cell c, Key key) {
    return new Cell(key, c.promised(), c.accepted(), c.purge(), c.writeTimeMs());
  }

  @Provide
  Arbitrary<List<Cell>> replayedCells() {
    Arbitrary<Cell> cell =
        Combinators.combine(Arbitraries.integers().between(0, KEYS - 1), CellArbitraries.cells())
            .as((k, c) -> withKey(c, key(k)));
    return cell.list().ofMaxSize(200);
  }

  /** The memtable the old replay built: every cell merged into an empty memtable, in log order. */
  private static Memtable mergedOneByOne(List<Cell> cells) {
    Memtable m = new Memtable(0, 0, FAIL_ON_CONFLICT);
    cells.forEach(m::merge);
    return m;
  }

  private static void assertSameMemtable(Memtable expected, Memtable actual) {
    assertEquals(expected.cellCount(), actual.cellCount());
    assertEquals(expected.heapBytes(), actual.heapBytes());
    Iterator<Cell> e = expected.iterator(null, null);
    Iterator<Cell> a = actual.iterator(null, null);
    while (e.hasNext()) {
      assertEquals(e.next(), a.next());
    }
  }

  @Property(tries = 500)
  void loadedMemtable_equalsMergingEveryCellOneByOne(
      @ForAll("replayedCells") List<Cell> cells, @ForAll @IntRange(min = 1, max = 4000) int batch) {
    // Small batches: several sorted batches get merged, as in a large replay.
    MemtableLoader loader = new MemtableLoader(FAIL_ON_CONFLICT, batch);
    cells.forEach(loader::add);
    assertSameMemtable(mergedOneByOne(cells), loader.build(0, 0));
  }

  @Property(tries = 100)
  void loadedMemtable_takesLaterWritesLikeAnyMemtable(
      @ForAll("replayedCells") @Size(min = 1) List<Cell> cells) {
    MemtableLoader loader = new MemtableLoader(FAIL_ON_CONFLICT, 500);
    List<Cell> replayed = cells.subList(0, cells.size() / 2);
    List<Cell> later = cells.subList(cells.size() / 2, cells.size());
    replayed.forEach(loader::add);
    Memtable loaded = loader.build(3, 42);
    later.forEach(loaded::merge);
    assertEquals(3, loaded.id());
    assertEquals(42, loaded.createdAtMs());
    assertSameMemtable(mergedOneByOne(cells), loaded);
  }

  @Test
  void keysSharingAToken_stayApartInKeyOrder_andEachMergesItsOwnCells() {
    Key real = key(1);
    Key sameToken = Key.lowestWithToken(real.token()); // a different key with the same token
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Key k = i % 3 == 0 ? sameToken : real;
      cells.add(
          Cell.accepted(
              k, AcceptedValue.live(1, i, new Ballot(i + 1, 1, 0), new byte[i], true), i));
    }
    MemtableLoader loader = new MemtableLoader(FAIL_ON_CONFLICT, 1000);
    cells.forEach(loader::add);
    Memtable loaded = loader.build(0, 0);
    assertSameMemtable(mergedOneByOne(cells), loaded);
    assertEquals(2, loaded.cellCount());
    assertEquals(27, loaded.get(sameToken).accepted().timestamp());
    assertEquals(29, loaded.get(real).accepted().timestamp());
  }

  @Test
  void conflictsMet_whileFolding_areReported() {
    Key k = key(7);
    Ballot b = new Ballot(3, 1, 0);
    Cell one = Cell.accepted(k, AcceptedValue.live(1, 1, b, new byte[] {1}, false), 0);
    Cell other = Cell.accepted(k, AcceptedValue.live(1, 1, b, new byte[] {2}, false), 0);
    AtomicInteger reported = new AtomicInteger();
    MemtableLoader loader = new MemtableLoader((key, kept, dropped) -> reported.incrementAndGet());
    loader.add(one);
    loader.add(other);
    loader.build(0, 0);
    assertEquals(1, reported.get());
  }

  @Test
  void emptyReplay_buildsAnEmptyMemtable_andTheLoaderIsSingleUse() {
    MemtableLoader loader = new MemtableLoader(FAIL_ON_CONFLICT);
    Memtable m = loader.build(0, 0);
    assertEquals(0, m.cellCount());
    assertEquals(0, m.heapBytes());
    assertNull(m.get(key(1)));
    assertThrows(IllegalStateException.class, () -> loader.build(0, 0));
    assertThrows(
        IllegalStateException.class,
        () ->
            loader.add(
                Cell.promise(key(1), new Ballot(1, 1, 0), 0))); // nothing is added after build
  }
}
