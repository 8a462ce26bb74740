package io.frsm.lsm;

import static io.frsm.lsm.TestCells.deleted;
import static io.frsm.lsm.TestCells.key;
import static io.frsm.lsm.TestCells.live;
import static io.frsm.lsm.TestCells.promise;
import static io.frsm.lsm.TestCells.purge;
import static io.frsm.lsm.TestCells.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PurgeCompactionsTest {
  private static final Path DATA = Path.of("/node/data");
  private static final Duration GRACE = Duration.ofHours(1);
  private static final long GRACE_MS = GRACE.toMillis();
  private static final long INTERVAL_MS = Duration.ofMinutes(10).toMillis();

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final AtomicLong clockMs = new AtomicLong(1_000_000);
  private final List<LsmEngine> open = new ArrayList<>();

  /** Compactions the schedule asked for, each completed by the test. */
  private final List<CompletableFuture<Void>> asked = new ArrayList<>();

  private final PurgeCompactions schedule =
      new PurgeCompactions(
          GRACE_MS,
          INTERVAL_MS,
          () -> {
            CompletableFuture<Void> f = new CompletableFuture<>();
            asked.add(f);
            return f;
          });

  @AfterEach
  void killAll() {
    open.forEach(LsmEngine::kill);
  }

  @Test
  void maybeStart_waitsForTheOldestMarkToPassGrace_thenStartsOne() {
    schedule.maybeStart(0);
    assertEquals(0, asked.size(), "nothing marked");
    schedule.marked(100);
    schedule.maybeStart(100 + GRACE_MS - 1);
    assertEquals(0, asked.size(), "still in grace");
    schedule.maybeStart(100 + GRACE_MS);
    schedule.maybeStart(100 + GRACE_MS + INTERVAL_MS);
    assertEquals(1, asked.size(), "one at a time");
    assertEquals(1, schedule.started());
  }

  @Test
  void maybeStart_afterOne_waitsAnInterval_andOnlyForMarksLeft() {
    schedule.marked(0);
    schedule.maybeStart(GRACE_MS);
    asked.get(0).complete(null);
    schedule.maybeStart(GRACE_MS + INTERVAL_MS);
    assertEquals(1, asked.size(), "the marks were handled: nothing left");
    schedule.marked(GRACE_MS); // a compaction kept one, or a new one was written
    schedule.maybeStart(2 * GRACE_MS - 1);
    assertEquals(1, asked.size());
    schedule.maybeStart(2 * GRACE_MS);
    assertEquals(2, asked.size());
  }

  @Test
  void maybeStart_afterAFailedCompaction_triesAgainAfterTheInterval() {
    schedule.marked(0);
    schedule.maybeStart(GRACE_MS);
    asked.get(0).completeExceptionally(new IOException("disk"));
    schedule.maybeStart(GRACE_MS + INTERVAL_MS - 1);
    assertEquals(1, asked.size());
    schedule.maybeStart(GRACE_MS + INTERVAL_MS);
    assertEquals(2, asked.size(), "the failed one's marks came back");
  }

  private LsmEngine openEngine() throws IOException {
    LsmConfig config =
        LsmConfig.builder(DATA)
            .commitLogDirectories(List.of(Path.of("/node/cl0")))
            .blockCacheSizeBytes(1 << 20)
            .tombstoneGracePeriod(GRACE)
            .tombstoneCompactionInterval(Duration.ofMillis(INTERVAL_MS))
            .build();
    LsmEngine engine = LsmEngine.open(config, fs, new SimpleMeterRegistry(), clockMs::get);
    open.add(engine);
    return engine;
  }

  @Test
  void engine_dropsAPurgedDelete_byItself_onceItsMarkIsPastGrace() throws Exception {
    LsmEngine engine = openEngine();
    Key gone = key("gone");
    Key other = key("other");
    engine.write(live(gone, 1, 0, "v", true)).get(30, TimeUnit.SECONDS);
    engine.write(live(other, 1, 0, "stays", true)).get(30, TimeUnit.SECONDS);
    engine.flush().get(30, TimeUnit.SECONDS);
    engine.write(deleted(gone, 1, 1, true)).get(30, TimeUnit.SECONDS);
    engine.write(purge(gone, 1, 1, clockMs.get())).get(30, TimeUnit.SECONDS);
    engine.flush().get(30, TimeUnit.SECONDS);
    engine.runMaintenance();
    assertNotNull(engine.get(gone), "within grace the tombstone stays");
    assertEquals(2, engine.tables().size(), "no compaction in grace");

    clockMs.addAndGet(GRACE_MS);
    engine.runMaintenance();
    LsmEngineTest.waitUntil(
        () -> engine.tables().size() == 1, "the purge compaction to merge the tables");
    assertNull(engine.get(gone));
    assertEquals("stays", valueOf(engine.get(other)));
    assertEquals(1, engine.tables().get(0).cellCount(), "only the live key is left on disk");
  }

  @Test
  void engine_reopenedWithTables_runsOnePurgeCompactionAGraceLater() throws Exception {
    LsmEngine first = openEngine();
    Key gone = key("gone");
    first.write(live(gone, 1, 0, "v", true)).get(30, TimeUnit.SECONDS);
    first.flush().get(30, TimeUnit.SECONDS);
    first.write(deleted(gone, 1, 1, true)).get(30, TimeUnit.SECONDS);
    first.write(purge(gone, 1, 1, clockMs.get())).get(30, TimeUnit.SECONDS);
    first.close();
    open.remove(first);
    AtomicInteger tablesBefore = new AtomicInteger();
    LsmEngine engine = openEngine();
    engine.flush().get(30, TimeUnit.SECONDS);
    tablesBefore.set(engine.tables().size());
    assertEquals(2, tablesBefore.get());
    clockMs.addAndGet(GRACE_MS);
    engine.runMaintenance();
    LsmEngineTest.waitUntil(() -> engine.tables().isEmpty(), "the purge compaction after a start");
    assertNull(engine.get(gone));
  }

  /**
   * The usual order on a replica that is not the delete's leader (Acceptor: a Purge persists a cell
   * of the mark alone): the delete was flushed before the purge reached it, so the mark is flushed
   * into a table of its own, without the delete it names. The flush must still count it, or no
   * purge compaction ever merges the two and drops the key (DeleteReclaimIT).
   */
  @Test
  void engine_dropsAPurgedDelete_whoseMarkWasFlushedApartFromTheDelete() throws Exception {
    LsmEngine engine = openEngine();
    Key gone = key("gone");
    engine.write(live(gone, 1, 0, "v", true)).get(30, TimeUnit.SECONDS);
    engine.write(deleted(gone, 1, 1, true)).get(30, TimeUnit.SECONDS);
    engine.flush().get(30, TimeUnit.SECONDS);
    engine.write(purge(gone, 1, 1, clockMs.get())).get(30, TimeUnit.SECONDS);
    engine.flush().get(30, TimeUnit.SECONDS);
    assertEquals(2, engine.tables().size());
    assertNotNull(engine.get(gone).purge(), "the mark reached the replica");

    clockMs.addAndGet(GRACE_MS);
    engine.runMaintenance();
    LsmEngineTest.waitUntil(
        () -> engine.tables().isEmpty(), "the purge compaction to merge and drop the key");
    assertNull(engine.get(gone));
  }

  /**
   * A Purge resent after this replica already dropped the key leaves a mark alone (no value, no
   * promise). It used to stay for good: compaction dropped only purged deletes (DeleteReclaimIT
   * failed once so). It goes with the next purge compaction past grace; a mark beside a promise
   * stays (the promise is Paxos state).
   */
  @Test
  void engine_dropsALoneMark_aResentPurgeLeft_butNotAMarkBesideAPromise() throws Exception {
    LsmEngine engine = openEngine();
    Key lone = key("lone");
    Key promised = key("promised");
    engine.write(purge(lone, 1, 1, clockMs.get())).get(30, TimeUnit.SECONDS);
    engine.write(promise(promised, 7)).get(30, TimeUnit.SECONDS);
    engine.write(purge(promised, 1, 1, clockMs.get())).get(30, TimeUnit.SECONDS);
    engine.flush().get(30, TimeUnit.SECONDS);
    assertNotNull(engine.get(lone).purge());

    clockMs.addAndGet(GRACE_MS);
    engine.runMaintenance();
    LsmEngineTest.waitUntil(() -> engine.get(lone) == null, "the lone mark to be dropped");
    assertNotNull(engine.get(promised), "a promise is never dropped");
    assertNotNull(engine.get(promised).purge());
  }
}
