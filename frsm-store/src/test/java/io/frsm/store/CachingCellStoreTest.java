package io.frsm.store;

import static io.frsm.store.StorageCells.accepted;
import static io.frsm.store.StorageCells.key;
import static io.frsm.store.StorageCells.promise;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class CachingCellStoreTest {

  /** The store behind the cache: merged cells in a map, counting reads. */
  private static final class MapStore implements CellStore {
    final Map<Key, Cell> cells = new HashMap<>();
    long reads;

    @Override
    public Cell get(Key key) {
      reads++;
      return cells.get(key);
    }

    void merge(Cell delta) {
      cells.merge(delta.key(), delta, CellMerge::merge);
    }
  }

  private static Cell randomDelta(Random random, Key key) {
    long round = 1 + random.nextInt(20);
    return switch (random.nextInt(3)) {
      case 0 -> promise(key, round);
      case 1 -> accepted(key, random.nextInt(10), round, "v" + round);
      default -> StorageCells.chosen(key, random.nextInt(10), round, "v" + round);
    };
  }

  private static boolean sameState(Cell a, Cell b) {
    return a == null
        ? b == null
        : b != null
            && a.promised().equals(b.promised())
            && java.util.Objects.equals(a.accepted(), b.accepted())
            && java.util.Objects.equals(a.purge(), b.purge());
  }

  /**
   * Random interleavings of completed persists, reads (also between a write reaching the store and
   * the cache hearing of it, as a commit-log thread can interleave with the event loop), evictions
   * and SSTable imports under bypass: every read after a persist completed sees exactly the store.
   */
  @Property(tries = 300)
  void reads_alwaysEqualTheStore_underRandomInterleavings(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 400) int steps,
      @ForAll @IntRange(min = 0, max = 2000) int maximumWeightBytes) {
    Random random = new Random(seed);
    MapStore store = new MapStore();
    CachingCellStore cache = new CachingCellStore(store, maximumWeightBytes);
    Key[] keys = {key("a"), key("b"), key("c"), key("d")};
    for (int i = 0; i < steps; i++) {
      Key k = keys[random.nextInt(keys.length)];
      int action = random.nextInt(10);
      if (action < 4) {
        Cell delta = randomDelta(random, k);
        Cell before = store.cells.get(k);
        store.merge(delta); // the engine write completed...
        if (random.nextBoolean() && !cache.bypassing()) {
          // ...a read racing with it sees the state before or after the delta...
          Cell seen = cache.get(k);
          assertTrue(sameState(seen, before) || sameState(seen, store.cells.get(k)), "racing read");
        }
        cache.persisted(delta); // ...and from here on, the new state only.
      } else if (action == 4) {
        if (cache.bypassing()) {
          cache.endBypass();
        } else {
          cache.beginBypass();
        }
      } else if (action == 5 && cache.bypassing()) {
        store.merge(randomDelta(random, k)); // an imported cell: no persist, no notification
      } else {
        assertTrue(sameState(store.cells.get(k), cache.get(k)), "read of " + k + " at step " + i);
      }
    }
    cache.endBypass();
    for (Key k : keys) {
      assertTrue(sameState(store.cells.get(k), cache.get(k)), "final read of " + k);
    }
  }

  @Test
  void weight_staysWithinTheBound() {
    MapStore store = new MapStore();
    long bound = 10_000;
    CachingCellStore cache = new CachingCellStore(store, bound);
    for (int i = 0; i < 1_000; i++) {
      Key k = key("key-" + i);
      store.merge(accepted(k, 0, 3, "x".repeat(100)));
      cache.get(k);
      assertTrue(cache.weightedSizeBytes() <= bound, "weight " + cache.weightedSizeBytes());
    }
    assertTrue(cache.weightedSizeBytes() > 0);
  }

  @Test
  void hit_servesFromTheCache_withoutReadingTheStore() {
    MapStore store = new MapStore();
    CachingCellStore cache = new CachingCellStore(store, 1 << 20);
    Key k = key("k");
    assertNull(cache.get(k));
    store.merge(promise(k, 4));
    cache.persisted(promise(k, 4)); // merged into the cached "nothing stored"
    assertEquals(promise(k, 4).promised(), cache.get(k).promised());
    assertEquals(1, store.reads);
    assertEquals(1, cache.hits());
    assertEquals(1, cache.misses());
  }

  @Test
  void bypass_readsTheStoreDuringAnImport_andForgetsPreImportEntriesAfter() {
    MapStore store = new MapStore();
    CachingCellStore cache = new CachingCellStore(store, 1 << 20);
    Key k = key("k");
    store.merge(accepted(k, 0, 3, "old"));
    assertEquals("old", new String(cache.get(k).accepted().valueUnsafe()));
    cache.beginBypass();
    store.merge(accepted(k, 1, 4, "imported")); // arrives by SSTable import, not by a persist
    assertEquals("imported", new String(cache.get(k).accepted().valueUnsafe()));
    long readsDuringImport = store.reads;
    cache.get(k);
    assertEquals(readsDuringImport + 1, store.reads, "nothing cached while bypassing");
    cache.endBypass();
    assertEquals("imported", new String(cache.get(k).accepted().valueUnsafe()));
    cache.get(k);
    assertEquals(readsDuringImport + 2, store.reads, "cached again after the import");
  }
}
