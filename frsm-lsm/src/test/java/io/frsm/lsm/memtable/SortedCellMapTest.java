package io.frsm.lsm.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;

class SortedCellMapTest {
  private final Cell[] cells = new Cell[20];
  private final TreeMap<Key, Cell> reference = new TreeMap<>();

  SortedCellMapTest() {
    for (int i = 0; i < cells.length; i++) {
      Key k = Key.of(("k" + i).getBytes(StandardCharsets.US_ASCII));
      cells[i] = Cell.promise(k, new Ballot(i + 1, 1, 0), 0);
    }
    Arrays.sort(cells, (a, b) -> a.key().compareTo(b.key()));
    for (Cell c : cells) {
      reference.put(c.key(), c);
    }
  }

  private Key keyAt(int i) {
    return cells[i].key();
  }

  @Test
  void behavesLikeATreeMapOfTheSameCells() {
    SortedCellMap<Cell> map = SortedCellMap.ofCells(cells, 0, cells.length);
    assertEquals(reference, map);
    assertEquals(reference.firstKey(), map.firstKey());
    assertEquals(reference.lastKey(), map.lastKey());
    assertSame(cells[4], map.get(keyAt(4)));
    assertNull(map.get(Key.of(new byte[] {'x'})));
    assertNull(map.get("not a key"));
    assertTrue(map.containsKey(keyAt(0)));
    assertEquals(reference.subMap(keyAt(3), keyAt(9)), map.subMap(keyAt(3), keyAt(9)));
    assertEquals(reference.headMap(keyAt(5)), map.headMap(keyAt(5)));
    assertEquals(reference.tailMap(keyAt(15)), map.tailMap(keyAt(15)));
    assertEquals(
        reference.subMap(keyAt(3), keyAt(9)).headMap(keyAt(6)),
        map.subMap(keyAt(3), keyAt(9)).headMap(keyAt(6)));
    assertEquals(new ArrayList<>(reference.keySet()), new ArrayList<>(map.keySet()));
  }

  @Test
  void aSkipListBuiltFromIt_holdsEveryCellInOrder() {
    ConcurrentSkipListMap<Key, Cell> skipList =
        new ConcurrentSkipListMap<>(SortedCellMap.ofCells(cells, 0, cells.length));
    assertEquals(reference, skipList);
    assertEquals(List.copyOf(reference.values()), List.copyOf(skipList.values()));
  }

  @Test
  void boundsOutsideASubMap_andReversedBounds_areRejected() {
    SortedMap<Key, Cell> sub =
        SortedCellMap.ofCells(cells, 0, cells.length).subMap(keyAt(5), keyAt(10));
    assertThrows(IllegalArgumentException.class, () -> sub.headMap(keyAt(12)));
    assertThrows(IllegalArgumentException.class, () -> sub.tailMap(keyAt(2)));
    assertThrows(
        IllegalArgumentException.class,
        () -> SortedCellMap.ofCells(cells, 0, cells.length).subMap(keyAt(9), keyAt(3)));
  }

  @Test
  void emptyMap_hasNoFirstOrLastKey() {
    SortedCellMap<Cell> empty = SortedCellMap.ofCells(cells, 4, 4);
    assertTrue(empty.isEmpty());
    assertThrows(NoSuchElementException.class, empty::firstKey);
    assertThrows(NoSuchElementException.class, empty::lastKey);
    assertFalse(empty.entrySet().iterator().hasNext());
    assertThrows(NoSuchElementException.class, () -> empty.entrySet().iterator().next());
  }

  @Test
  void isReadOnly() {
    SortedCellMap<Cell> map = SortedCellMap.ofCells(cells, 0, cells.length);
    assertThrows(UnsupportedOperationException.class, () -> map.put(keyAt(0), cells[0]));
    assertThrows(UnsupportedOperationException.class, () -> map.remove(keyAt(0)));
  }
}
