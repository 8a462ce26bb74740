package io.frsm.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class CellMergePropertiesTest {

  private static final MergeConflictListener FAIL_ON_CONFLICT =
      (key, kept, dropped) -> {
        throw new AssertionError("unexpected conflict " + kept + " / " + dropped);
      };

  @Provide
  Arbitrary<Cell> cell() {
    return CellArbitraries.cells();
  }

  @Property(tries = 2000)
  void merge_isCommutative(@ForAll("cell") Cell a, @ForAll("cell") Cell b) {
    assertEquals(CellMerge.merge(a, b, FAIL_ON_CONFLICT), CellMerge.merge(b, a, FAIL_ON_CONFLICT));
  }

  @Property(tries = 2000)
  void merge_isAssociative(@ForAll("cell") Cell a, @ForAll("cell") Cell b, @ForAll("cell") Cell c) {
    assertEquals(
        CellMerge.merge(CellMerge.merge(a, b, FAIL_ON_CONFLICT), c, FAIL_ON_CONFLICT),
        CellMerge.merge(a, CellMerge.merge(b, c, FAIL_ON_CONFLICT), FAIL_ON_CONFLICT));
  }

  @Property(tries = 1000)
  void merge_isIdempotent(@ForAll("cell") Cell a, @ForAll("cell") Cell b) {
    assertEquals(a, CellMerge.merge(a, a, FAIL_ON_CONFLICT));
    Cell ab = CellMerge.merge(a, b, FAIL_ON_CONFLICT);
    assertEquals(ab, CellMerge.merge(ab, b, FAIL_ON_CONFLICT));
    assertEquals(ab, CellMerge.merge(ab, a, FAIL_ON_CONFLICT));
  }

  @Property(tries = 1000)
  void merge_isAnUpperBound(@ForAll("cell") Cell a, @ForAll("cell") Cell b) {
    Cell m = CellMerge.merge(a, b, FAIL_ON_CONFLICT);
    assertTrue(m.promised().compareTo(a.promised()) >= 0);
    assertTrue(m.promised().compareTo(b.promised()) >= 0);
    for (Cell in : List.of(a, b)) {
      if (in.accepted() != null) {
        assertTrue(m.accepted().compareTo(in.accepted()) >= 0);
        // A chosen flag is never lost at the winning instance.
        if (in.accepted().chosen() && m.accepted().sameInstance(in.accepted())) {
          assertTrue(m.accepted().chosen(), "chosen lost: " + in + " -> " + m);
        }
      }
    }
  }

  /** Replay order does not matter: any permutation of records folds to the same cell. */
  @Property(tries = 300)
  void foldInAnyOrder_givesTheSameCell(
      @ForAll("cell") Cell a,
      @ForAll("cell") Cell b,
      @ForAll("cell") Cell c,
      @ForAll("cell") Cell d) {
    List<Cell> cells = new ArrayList<>(List.of(a, b, c, d));
    Cell forward = fold(cells);
    java.util.Collections.reverse(cells);
    assertEquals(forward, fold(cells));
    java.util.Collections.swap(cells, 0, 2);
    assertEquals(forward, fold(cells));
  }

  private static Cell fold(List<Cell> cells) {
    Cell acc = cells.get(0);
    for (int i = 1; i < cells.size(); i++) {
      acc = CellMerge.merge(acc, cells.get(i), FAIL_ON_CONFLICT);
    }
    return acc;
  }

  @Property(tries = 200)
  void conflict_isReportedAndResolvedDeterministically(@ForAll("cell") Cell base) {
    Ballot b = new Ballot(7, 1, 0);
    Cell x = Cell.accepted(base.key(), AcceptedValue.live(3, 3, b, new byte[] {1}, false), 1);
    Cell y = Cell.accepted(base.key(), AcceptedValue.live(3, 3, b, new byte[] {2}, true), 1);
    List<String> reports = new ArrayList<>();
    MergeConflictListener record = (key, kept, dropped) -> reports.add(kept + "/" + dropped);
    Cell xy = CellMerge.merge(x, y, record);
    Cell yx = CellMerge.merge(y, x, record);
    assertEquals(xy, yx);
    assertEquals(2, reports.size());
    assertEquals(2, xy.accepted().valueUnsafe()[0]);
    assertTrue(xy.accepted().chosen());
  }

  @Property(tries = 200)
  void merge_returnsAnInputWhenItIsTheJoin(@ForAll("cell") Cell a) {
    Cell promiseOnly = Cell.promise(a.key(), Ballot.NONE, 0);
    assertSame(a, CellMerge.merge(a, promiseOnly, FAIL_ON_CONFLICT));
  }
}
