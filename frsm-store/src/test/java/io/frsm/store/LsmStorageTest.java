package io.frsm.store;

import static io.frsm.store.StorageCells.accepted;
import static io.frsm.store.StorageCells.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CellStoreException;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.QuarantinedRangeException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LsmCellStore} and {@link LsmPersister} over a real engine on a faulty file system. */
class LsmStorageTest {
  private static final Path DATA = Path.of("/node/data");
  private final FaultyFileSystem fs = new FaultyFileSystem();
  private LsmEngine engine;

  @BeforeEach
  void open() throws Exception {
    engine =
        LsmEngine.open(
            LsmConfig.builder(DATA).commitLogDirectories(List.of(Path.of("/node/log"))).build(),
            fs,
            new SimpleMeterRegistry());
  }

  @AfterEach
  void kill() {
    engine.kill();
  }

  private void await(java.util.concurrent.CompletableFuture<?> f) throws Exception {
    f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void persist_feedsPersistDone_afterTheCellIsReadable_andTellsTheCacheFirst() throws Exception {
    LsmCellStore store = new LsmCellStore(engine);
    CachingCellStore cache = new CachingCellStore(store, 1 << 20);
    Key k = key("k");
    assertNull(cache.get(k)); // caches "nothing stored"
    List<String> order = new ArrayList<>();
    LsmPersister persister =
        new LsmPersister(
            engine,
            new PersistListener() {
              @Override
              public void persisted(Cell delta) {
                cache.persisted(delta);
                order.add("cache");
              }

              @Override
              public void persistFailed(Cell delta) {
                order.add("failed");
              }
            },
            done -> {
              order.add("done " + done.persistId());
              assertEquals("v", new String(store.get(k).accepted().valueUnsafe()));
            },
            error -> order.add("fatal"));
    Cell delta = accepted(k, 0, 5, "v");
    await(persister.execute(new Effect.Persist(42, delta)));
    assertEquals(List.of("cache", "done 42"), order);
    assertEquals(delta.accepted(), cache.get(k).accepted()); // no stale "nothing stored"
  }

  @Test
  void persist_withoutAFuture_feedsPersistDoneOrFatal_andAHintBeforeItReturns() throws Exception {
    Key k = key("k");
    LinkedBlockingQueue<String> told = new LinkedBlockingQueue<>();
    LsmPersister persister =
        new LsmPersister(
            engine,
            PersistListener.NONE,
            done -> told.add("done " + done.persistId()),
            error -> told.add("fatal " + error.getClass().getSimpleName()));
    persister.persist(new Effect.Persist(1, accepted(k, 0, 5, "v")));
    assertEquals("done 1", told.poll(10, TimeUnit.SECONDS));
    persister.persist(new Effect.Persist(2, accepted(k, 0, 5, "v"), false));
    assertEquals("done 2", told.poll(), "a hint is done before persist returns");
    fs.setCapacityBytes(fs.usedBytes()); // disk full
    persister.persist(new Effect.Persist(3, accepted(k, 1, 6, "w")));
    assertEquals("fatal IOException", told.poll(10, TimeUnit.SECONDS));
    engine.kill();
    persister.persist(new Effect.Persist(4, accepted(k, 1, 7, "x")));
    assertEquals("fatal IllegalStateException", told.poll(), "a closed engine: fatal at once");
    assertNull(told.poll());
  }

  @Test
  void failedWrite_isFatal_neverPersistDone_andDropsTheCachedKey() throws Exception {
    Key k = key("k");
    await(engine.write(accepted(k, 0, 5, "v")));
    CachingCellStore cache = new CachingCellStore(new LsmCellStore(engine), 1 << 20);
    cache.get(k);
    List<Input.PersistDone> done = new ArrayList<>();
    List<Throwable> fatal = new ArrayList<>();
    LsmPersister persister = new LsmPersister(engine, cache, done::add, fatal::add);
    fs.setCapacityBytes(fs.usedBytes()); // disk full
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> await(persister.execute(new Effect.Persist(1, accepted(k, 1, 6, "w")))));
    assertTrue(done.isEmpty());
    assertEquals(1, fatal.size(), e.toString());
    assertEquals(1, cache.misses());
    cache.get(k); // reloaded from the store, not served from the entry the failure dropped
    assertEquals(2, cache.misses());
  }

  @Test
  void quarantinedTable_becomesCellStoreException_namingTheKeyAndCause() throws Exception {
    LsmCellStore store = new LsmCellStore(engine);
    Key damaged = key("damaged");
    await(engine.write(accepted(damaged, 0, 5, "v")));
    await(engine.flush());
    Key healthy = key("healthy");
    await(engine.write(accepted(healthy, 0, 5, "w")));
    await(engine.flush());
    TableEntry first =
        engine.tables().stream().min(Comparator.comparingLong(TableEntry::generation)).get();
    fs.flipByte(DATA.resolve(first.fileName()), 3);
    CellStoreException corrupt = assertThrows(CellStoreException.class, () -> store.get(damaged));
    assertTrue(corrupt.getMessage().contains("damaged"), corrupt.getMessage());
    CellStoreException quarantined =
        assertThrows(CellStoreException.class, () -> store.get(damaged));
    assertInstanceOf(QuarantinedRangeException.class, quarantined.getCause());
    assertEquals("w", new String(store.get(healthy).accepted().valueUnsafe()));
    assertEquals(2, store.readFailures());
  }
}
