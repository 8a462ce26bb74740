package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStore;
import io.frsm.store.CachingCellStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A learner's import of copied tables under its clock cache (docs/PROTOCOL.md "Membership changes",
 * "Clock cache during an import"): a key cached before the import — absent, or with an older
 * promise — is read from the store after it, never the stale cached cell.
 */
class ClockCacheFenceTest {
  private final ConcurrentHashMap<Key, Cell> store = new ConcurrentHashMap<>();
  private final CellStore engine = store::get;
  private final CachingCellStore cells = new CachingCellStore(engine, 1 << 20);
  private final ClockCacheFence fence = new ClockCacheFence(cells);

  private static Key key(String k) {
    return Key.of(k.getBytes(StandardCharsets.UTF_8));
  }

  private static Cell promised(Key key, long round) {
    return Cell.promise(key, new Ballot(round, 1, 1), 0);
  }

  @Test
  void aKeyCachedBeforeAnImport_isReadFromTheStoreAfterIt() throws IOException {
    Key absent = key("absent-before");
    Key older = key("older-before");
    store.put(older, promised(older, 1));
    assertNull(cells.get(absent)); // cached: nothing stored
    assertEquals(1, cells.get(older).promised().round()); // cached: round 1

    fence.around(
        () -> {
          assertTrue(cells.bypassing(), "the cache is bypassed while the import runs");
          store.put(absent, promised(absent, 5)); // the imported cells reach the store only
          store.put(older, promised(older, 7));
          assertEquals(5, cells.get(absent).promised().round(), "read through during the import");
        });

    assertFalse(cells.bypassing());
    assertEquals(5, cells.get(absent).promised().round(), "not the cached absence");
    assertEquals(7, cells.get(older).promised().round(), "not the cached older promise");
    assertSame(store.get(older), cells.get(older), "cached again from the store");
  }

  @Test
  void aFailedImport_endsTheBypassToo() {
    IOException failed =
        assertThrows(
            IOException.class,
            () ->
                fence.around(
                    () -> {
                      throw new IOException("disk full");
                    }));
    assertEquals("disk full", failed.getMessage());
    assertFalse(cells.bypassing());
  }
}
