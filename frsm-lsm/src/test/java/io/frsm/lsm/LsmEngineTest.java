package io.frsm.lsm;

import static io.frsm.lsm.TestCells.deleted;
import static io.frsm.lsm.TestCells.key;
import static io.frsm.lsm.TestCells.live;
import static io.frsm.lsm.TestCells.promise;
import static io.frsm.lsm.TestCells.purge;
import static io.frsm.lsm.TestCells.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LsmEngineTest {
  private static final Path DATA = Path.of("/node/data");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final AtomicLong clockMs = new AtomicLong(1_000_000);
  private final List<LsmEngine> open = new ArrayList<>();

  private LsmConfig.Builder config() {
    return LsmConfig.builder(DATA)
        .commitLogDirectories(List.of(Path.of("/node/cl0"), Path.of("/node/cl1")))
        .blockCacheSizeBytes(1 << 20);
  }

  private LsmEngine open(LsmConfig config) throws IOException {
    return open(config, fs);
  }

  private LsmEngine open(LsmConfig config, FileSystem fileSystem) throws IOException {
    LsmEngine e = LsmEngine.open(config, fileSystem, new SimpleMeterRegistry(), clockMs::get);
    open.add(e);
    return e;
  }

  @AfterEach
  void closeAll() {
    for (LsmEngine e : open) {
      e.kill();
    }
  }

  /** How many keys a scan of the whole token space returns. */
  private static int countAll(LsmEngine engine) throws IOException {
    int n = 0;
    try (CellIterator it = engine.scan(Long.MIN_VALUE, Long.MAX_VALUE)) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  private static void await(CompletableFuture<?> f) throws Exception {
    f.get(30, TimeUnit.SECONDS);
  }

  @Test
  void write_isReadableAfterFlushAndReopen() throws Exception {
    LsmEngine engine = open(config().build());
    Key k = key("a");
    await(engine.write(promise(k, 5)));
    await(engine.write(live(k, 1, 0, "v0", true)));
    Cell expected = CellMerge.merge(promise(k, 5), live(k, 1, 0, "v0", true));
    assertEquals(expected, engine.get(k));
    await(engine.flush());
    assertEquals(1, engine.tables().size());
    assertEquals(expected, engine.get(k));
    engine.close();
    LsmEngine reopened = open(config().build());
    assertEquals(expected, reopened.get(k));
    assertNull(reopened.get(key("missing")));
  }

  @Test
  void readsOfAClosedOrKilledEngine_failAtOnce_insteadOfSpinning() throws Exception {
    // Found by CoreShardsIT: a get after kill() spun forever (100% of a CPU) retrying a view
    // whose last reference the shutdown had released.
    for (boolean kill : new boolean[] {false, true}) {
      LsmEngine engine = open(config().build());
      Key k = key("a");
      await(engine.write(live(k, 1, 0, "v0", true)));
      await(engine.flush()); // a table in the view too
      if (kill) {
        engine.kill();
      } else {
        engine.close();
      }
      assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(10),
          () -> {
            IllegalStateException get =
                assertThrows(IllegalStateException.class, () -> engine.get(k));
            assertTrue(get.getMessage().contains("closed"), get.getMessage());
            assertThrows(
                IllegalStateException.class, () -> engine.scan(Long.MIN_VALUE, Long.MAX_VALUE));
          },
          kill ? "after kill()" : "after close()");
    }
  }

  @Test
  void writesToAClosedOrKilledEngine_areRefusedAtAdmission_andNothingIsWritten() throws Exception {
    // The switch lock's write side sets the closed flag; admission checks it under the read side,
    // so no writer reaches a memtable or the commit log once close() or kill() began.
    for (boolean kill : new boolean[] {false, true}) {
      LsmEngine engine = open(config().build());
      await(engine.write(live(key("before"), 1, 0, "v0", true)));
      if (kill) {
        engine.kill();
      } else {
        engine.close();
      }
      assertFalse(engine.isOpen());
      Key late = key("late");
      IllegalStateException logged =
          assertThrows(
              IllegalStateException.class, () -> engine.write(live(late, 1, 0, "v1", true)));
      assertTrue(logged.getMessage().contains("closed"), logged.getMessage());
      assertThrows(
          IllegalStateException.class, () -> engine.writeUnlogged(live(late, 1, 0, "v1", true)));
      LsmEngine reopened = open(config().build());
      assertNull(reopened.get(late), kill ? "after kill()" : "after close()");
      assertEquals("v0", valueOf(reopened.get(key("before"))));
      reopened.close();
    }
  }

  @Test
  void aScanThatFailsOnItsFirstRead_releasesItsViewOnce_andTheEngineKeepsServing()
      throws Exception {
    // Review finding: when a source failed in the merging iterator's constructor, both the
    // constructor and scan() released the view, so the current view reached zero references and
    // every later read spun forever retrying it.
    LsmEngine engine = open(config().blockCacheSizeBytes(0).build());
    Key inTable = key("in-table");
    await(engine.write(live(inTable, 1, 0, "t", true)));
    await(engine.flush());
    Key inMemtable = key("in-memtable");
    await(engine.write(live(inMemtable, 1, 0, "m", true)));
    Path table = DATA.resolve(engine.tables().get(0).fileName());
    fs.setReadsFail(table, true);
    assertThrows(IOException.class, () -> engine.scan(Long.MIN_VALUE, Long.MAX_VALUE));
    assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(10),
        () -> {
          assertEquals("m", valueOf(engine.get(inMemtable)));
          fs.setReadsFail(table, false);
          assertEquals("t", valueOf(engine.get(inTable)));
          assertEquals(2, countAll(engine));
        },
        "reads after the failed scan");
    assertTrue(engine.quarantinedTables().isEmpty(), "an I/O error is not corruption");
  }

  @Test
  void acknowledgedWrites_surviveACrash_withTheirExactClock() throws Exception {
    LsmEngine engine = open(config().build());
    Map<Key, Cell> expected = new HashMap<>();
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      Key k = key(i % 97);
      Cell c = live(k, 1, i, "value-" + i, i % 2 == 0);
      expected.merge(k, c, CellMerge::merge);
      acks.add(engine.write(c));
      if (i == 250) {
        engine.flush();
      }
    }
    for (CompletableFuture<Void> a : acks) {
      await(a);
    }
    engine.kill();
    fs.crash();
    LsmEngine reopened = open(config().build());
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      assertEquals(e.getValue(), reopened.get(e.getKey()));
    }
  }

  @Test
  void unloggedWrite_isVisibleAtOnce_lostByACrashBeforeItsFlush_keptAfterIt() throws Exception {
    LsmEngine engine = open(config().build());
    Key flushed = key("flushed");
    Key lost = key("lost");
    Cell accepted = live(flushed, 1, 0, "v", false);
    Cell chosenMark = live(flushed, 1, 0, "v", true);
    await(engine.write(accepted));
    await(engine.write(live(lost, 1, 0, "w", false)));
    CompletableFuture<Void> hint = engine.writeUnlogged(chosenMark);
    assertTrue(hint.isDone() && !hint.isCompletedExceptionally(), "complete on return");
    assertTrue(engine.get(flushed).accepted().chosen(), "visible at once");
    await(engine.flush());
    CompletableFuture<Void> unflushed = engine.writeUnlogged(live(lost, 1, 0, "w", true));
    assertTrue(unflushed.isDone());
    assertTrue(engine.get(lost).accepted().chosen());
    long logged = engine.commitLogBytes();
    engine.writeUnlogged(live(lost, 1, 0, "w", true));
    assertEquals(logged, engine.commitLogBytes(), "no commit-log record");

    engine.kill();
    fs.crash();
    LsmEngine reopened = open(config().build());
    assertEquals(chosenMark, reopened.get(flushed), "flushed with its memtable: durable");
    Cell afterCrash = reopened.get(lost);
    assertFalse(afterCrash.accepted().chosen(), "not flushed: the crash lost the unlogged mark");
    assertEquals("w", valueOf(afterCrash), "the logged write stays");
  }

  @Test
  void unloggedWrite_whileFlushesStall_waitsLikeAWrite_andOversizedIsRefused() throws Exception {
    LsmEngine engine = open(config().maxFrozenMemtables(1).maxValueSizeBytes(8).build());
    assertThrows(
        OversizedCellException.class,
        () -> engine.writeUnlogged(live(key("big"), 1, 0, "far too large", true)));
    assertNull(engine.get(key("big")));
    await(engine.write(live(key("a"), 1, 0, "a", false)));
    fs.setDirectoryFull(DATA, true);
    CompletableFuture<Void> flush = engine.flush();
    waitUntil(() -> engine.pendingFlushes() == 1, "a flush waiting");
    assertTrue(engine.writesStalled());
    CompletableFuture<Void> stalled = engine.writeUnlogged(live(key("k"), 1, 0, "v", true));
    assertFalse(stalled.isDone(), "held back while the flush queue is full");
    assertNull(engine.get(key("k")), "nothing merged while held back");
    fs.setDirectoryFull(DATA, false);
    await(flush);
    await(stalled);
    assertTrue(engine.get(key("k")).accepted().chosen());
    waitUntil(() -> !engine.writesStalled(), "writes go on");
  }

  @Test
  void replay_ofStripesSharingKeys_isTheMergeOfEveryRecord() throws Exception {
    // A key's records end up in several stripes when the stripe count or order changes between
    // runs; replay must still merge every record of every stripe.
    Path cl0 = Path.of("/node/cl0");
    Path cl1 = Path.of("/node/cl1");
    Path cl2 = Path.of("/node/cl2");
    List<List<Path>> runs =
        List.of(List.of(cl0, cl1), List.of(cl0, cl1, cl2), List.of(cl2, cl0, cl1));
    Map<Key, Cell> expected = new HashMap<>();
    int written = 0;
    for (List<Path> stripes : runs) {
      LsmEngine engine = open(config().commitLogDirectories(stripes).build());
      for (Map.Entry<Key, Cell> e : expected.entrySet()) {
        assertEquals(e.getValue(), engine.get(e.getKey()));
      }
      List<CompletableFuture<Void>> acks = new ArrayList<>();
      for (int i = 0; i < 300; i++, written++) {
        Key k = key(written % 41);
        Cell c =
            written % 5 == 0
                ? promise(k, 10_000 + written)
                : live(k, 1 + written % 3, written, "v" + written, written % 2 == 0);
        expected.merge(k, c, CellMerge::merge);
        acks.add(engine.write(c));
      }
      for (CompletableFuture<Void> a : acks) {
        await(a);
      }
      assertTrue(engine.tables().isEmpty(), "nothing flushed: the log holds every record");
      engine.kill();
      fs.crash();
    }
    LsmEngine reopened = open(config().commitLogDirectories(List.of(cl1, cl2, cl0)).build());
    assertEquals(41, expected.size());
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      assertEquals(e.getValue(), reopened.get(e.getKey()));
    }
  }

  @Test
  void oversizedKeyOrValue_isRejectedAndNothingIsWritten() throws Exception {
    LsmEngine engine = open(config().maxKeySizeBytes(16).maxValueSizeBytes(32).build());
    long before = engine.commitLogBytes();
    Key longKey = Key.of(new byte[17]);
    OversizedCellException e =
        assertThrows(OversizedCellException.class, () -> engine.write(promise(longKey, 1)));
    assertTrue(e.getMessage().contains("maxKeySizeBytes"), e.getMessage());
    Key k = key("k");
    assertThrows(
        OversizedCellException.class, () -> engine.write(live(k, 1, 0, "x".repeat(33), false)));
    assertEquals(before, engine.commitLogBytes());
    assertNull(engine.get(k));
    assertNull(engine.get(longKey));
  }

  @Test
  void diskFull_failsWrites_keepsAcknowledgedData_andRecovers() throws Exception {
    LsmEngine engine = open(config().build());
    Key k = key("k");
    await(engine.write(live(k, 1, 0, "kept", true)));
    fs.setCapacityBytes(fs.usedBytes() + 10);
    ExecutionException failure =
        assertThrows(
            ExecutionException.class,
            () -> await(engine.write(live(key("x"), 1, 0, "lost", true))));
    assertTrue(failure.getCause() instanceof IOException, failure.toString());
    assertEquals("kept", valueOf(engine.get(k)));
    fs.setCapacityBytes(Long.MAX_VALUE);
    await(engine.write(live(key("y"), 1, 0, "after", true)));
    assertEquals("after", valueOf(engine.get(key("y"))));
    engine.kill();
    fs.crash();
    LsmEngine reopened = open(config().build());
    assertEquals("kept", valueOf(reopened.get(k)));
    assertEquals("after", valueOf(reopened.get(key("y"))));
  }

  @Test
  void writesWithACallback_tellItOnceWithTheAttachment_andACallbackThatThrowsStopsNothing()
      throws Exception {
    LsmEngine engine = open(config().maxValueSizeBytes(32).build());
    LinkedBlockingQueue<String> told = new LinkedBlockingQueue<>();
    WriteCallback<String> callback =
        (attachment, failure) -> {
          told.add(attachment + (failure == null ? " ok" : " " + failure.getClass().getName()));
          throw new IllegalStateException("a callback's bug must not stop the engine");
        };
    engine.write(live(key("a"), 1, 0, "a", true), "a", callback);
    assertEquals("a ok", told.poll(30, TimeUnit.SECONDS));
    assertEquals("a", valueOf(engine.get(key("a")))); // visible once told
    engine.writeUnlogged(live(key("b"), 1, 0, "b", true), "b", callback);
    assertEquals("b ok", told.poll()); // told before writeUnlogged returned
    fs.setCapacityBytes(fs.usedBytes() + 10);
    engine.write(live(key("x"), 1, 0, "lost", true), "x", callback);
    assertEquals("x " + IOException.class.getName(), told.poll(30, TimeUnit.SECONDS));
    fs.setCapacityBytes(Long.MAX_VALUE);
    engine.write(live(key("y"), 1, 0, "y", true), "y", callback);
    assertEquals("y ok", told.poll(30, TimeUnit.SECONDS));
    await(engine.write(live(key("z"), 1, 0, "z", true))); // the stripe went on after the throws
    assertEquals(List.of(), List.copyOf(told), "each write is told once");
    assertThrows(
        OversizedCellException.class,
        () -> engine.write(live(key("big"), 1, 0, "x".repeat(33), true), "big", callback));
    engine.kill();
    assertThrows(
        IllegalStateException.class,
        () -> engine.write(live(key("c"), 1, 0, "c", true), "c", callback));
    assertNull(told.poll(), "a refused write is not told: the caller got the exception");
  }

  @Test
  void failingFlushes_holdWritesBack_thenLetThemInWhenAFlushMakesRoom() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LsmEngine engine =
        LsmEngine.open(config().maxFrozenMemtables(2).build(), fs, registry, clockMs::get);
    open.add(engine);
    await(engine.write(live(key("a"), 1, 0, "a", true)));
    // The data device is full, the commit-log devices are not: every flush fails and is retried.
    fs.setDirectoryFull(DATA, true);
    CompletableFuture<Void> first = engine.flush();
    waitUntil(() -> engine.pendingFlushes() == 1, "first flush queued");
    await(engine.write(live(key("b"), 1, 0, "b", true)));
    CompletableFuture<Void> second = engine.flush();
    waitUntil(() -> engine.pendingFlushes() == 2, "two flushes queued");
    assertFalse(first.isDone());
    assertTrue(engine.writesStalled(), "the flush queue is full");
    // A write now waits instead of failing (a failed persist would stop a node): not logged, not
    // visible; so does every write after it, logged or not.
    CompletableFuture<Void> c = engine.write(live(key("c"), 1, 0, "c", true));
    CompletableFuture<Void> d = engine.writeUnlogged(live(key("d"), 1, 0, "d", true));
    assertFalse(c.isDone());
    assertFalse(d.isDone());
    assertNull(engine.get(key("c")));
    assertNull(engine.get(key("d")));
    assertEquals(2.0, registry.get("frsm.lsm.writes.held").gauge().value());
    // Frozen memtables stay readable while their flush fails.
    assertEquals("a", valueOf(engine.get(key("a"))));
    fs.setDirectoryFull(DATA, false);
    await(first);
    await(second);
    await(c);
    await(d);
    assertEquals("c", valueOf(engine.get(key("c"))));
    assertEquals("d", valueOf(engine.get(key("d"))));
    assertEquals("b", valueOf(engine.get(key("b"))));
    waitUntil(() -> !engine.writesStalled(), "writes go on");
    assertEquals(1.0, registry.get("frsm.lsm.write.stalls").functionCounter().count());
    assertEquals(2.0, registry.get("frsm.lsm.writes.held.back").functionCounter().count());
    // The held write was logged when let in: it survives a crash.
    engine.kill();
    fs.crash();
    LsmEngine reopened = open(config().build());
    assertEquals("c", valueOf(reopened.get(key("c"))));
  }

  @Test
  void writesHeldBack_failWhenTheEngineStops_insteadOfWaitingForever() throws Exception {
    LsmEngine engine = open(config().maxFrozenMemtables(1).build());
    await(engine.write(live(key("a"), 1, 0, "a", true)));
    fs.setDirectoryFull(DATA, true);
    engine.flush();
    waitUntil(() -> engine.pendingFlushes() == 1, "a flush waiting");
    CompletableFuture<Void> held = engine.write(live(key("b"), 1, 0, "b", true));
    assertFalse(held.isDone());
    engine.kill();
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> held.get(10, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    assertThrows(IllegalStateException.class, () -> engine.write(live(key("x"), 1, 0, "x", true)));
  }

  @Test
  void corruptBlock_isQuarantined_otherTablesKeepServing() throws Exception {
    LsmEngine engine = open(config().build());
    Key damaged = key("damaged");
    await(engine.write(live(damaged, 1, 0, "v", true)));
    await(engine.flush());
    Key healthy = key("healthy");
    await(engine.write(live(healthy, 1, 0, "w", true)));
    await(engine.flush());
    TableEntry first =
        engine.tables().stream().min((a, b) -> Long.compare(a.generation(), b.generation())).get();
    fs.flipByte(DATA.resolve(first.fileName()), 3);
    CorruptionException e = assertThrows(CorruptionException.class, () -> engine.get(damaged));
    assertTrue(e.getMessage().contains(first.fileName()), e.getMessage());
    // The damaged data block is quarantined, not the table's whole token span (issue 23).
    assertEquals(
        List.of(first.generation()),
        engine.quarantinedIntervals().stream().map(QuarantinedInterval::generation).toList());
    assertFalse(engine.quarantinedIntervals().get(0).wholeTable());
    // The damaged key can no longer be answered from older state.
    assertThrows(QuarantinedRangeException.class, () -> engine.get(damaged));
    assertEquals("w", valueOf(engine.get(healthy)));
    engine.close();
    // Across a restart the quarantine holds.
    LsmEngine reopened = open(config().build());
    assertThrows(QuarantinedRangeException.class, () -> reopened.get(damaged));
    assertEquals("w", valueOf(reopened.get(healthy)));
    reopened.releaseQuarantine(first.generation());
    assertNull(reopened.get(damaged));
  }

  @Test
  void manySmallFlushes_areCompactedBySizeTier_withoutLosingData() throws Exception {
    LsmEngine engine = open(config().minorCompactionMinTables(4).build());
    Map<Key, Cell> expected = new HashMap<>();
    for (int round = 0; round < 8; round++) {
      for (int i = 0; i < 50; i++) {
        Key k = key(i);
        Cell c = live(k, 1, round, "r" + round, round % 2 == 0);
        expected.merge(k, c, CellMerge::merge);
        await(engine.write(c));
      }
      await(engine.flush());
    }
    waitUntil(() -> engine.tables().size() < 4, "minor compaction");
    for (Map.Entry<Key, Cell> e : expected.entrySet()) {
      assertEquals(e.getValue(), engine.get(e.getKey()));
    }
  }

  @Test
  void purgedDelete_isDroppedOnlyAfterTheGracePeriod() throws Exception {
    LsmEngine engine = open(config().tombstoneGracePeriod(Duration.ofHours(24)).build());
    Key k = key("gone");
    await(engine.write(live(k, 1, 0, "v", true)));
    await(engine.write(deleted(k, 1, 1, true)));
    await(engine.write(purge(k, 1, 1, clockMs.get())));
    Key other = key("other");
    await(engine.write(live(other, 1, 0, "stays", true)));
    await(engine.flush());
    await(engine.compactMajor());
    assertTrue(engine.get(k) != null, "within the grace period the tombstone stays");
    clockMs.addAndGet(Duration.ofHours(24).toMillis());
    await(engine.compactMajor());
    assertNull(engine.get(k));
    assertEquals("stays", valueOf(engine.get(other)));
  }

  @Test
  void purgedDelete_staysWhileAnotherTableMayHoldTheKey() throws Exception {
    LsmEngine engine = open(config().tombstoneGracePeriod(Duration.ZERO).build());
    Key k = key("k");
    // An older live cell sits in a segregated table, outside every compaction.
    engine.setSegregatedFlushes(true);
    await(engine.write(live(k, 1, 0, "old", true)));
    await(engine.flush());
    engine.setSegregatedFlushes(false);
    await(engine.write(deleted(k, 1, 1, true)));
    await(engine.write(purge(k, 1, 1, clockMs.get())));
    await(engine.flush());
    await(engine.compactMajor());
    Cell c = engine.get(k);
    assertTrue(c != null && c.accepted().isDelete(), "delete must not be dropped: " + c);
    // Once the segregated table is released, a major compaction includes it and drops the key.
    engine.releaseSegregated();
    await(engine.compactMajor());
    assertNull(engine.get(k));
  }

  @Test
  void segregatedTables_areNeverCompactedUntilReleased() throws Exception {
    LsmEngine engine = open(config().minorCompactionMinTables(2).build());
    engine.setSegregatedFlushes(true);
    for (int i = 0; i < 3; i++) {
      await(engine.write(live(key(i), 1, 0, "s" + i, true)));
      await(engine.flush());
    }
    await(engine.compactMajor());
    assertEquals(3, engine.tables().size());
    assertEquals(3, engine.segregatedTables().size());
    engine.releaseSegregated();
    await(engine.compactMajor());
    assertEquals(1, engine.tables().size());
    for (int i = 0; i < 3; i++) {
      assertEquals("s" + i, valueOf(engine.get(key(i))));
    }
  }

  @Test
  void scan_returnsExactlyTheKeysOfATokenRange_inOrder() throws Exception {
    LsmEngine engine = open(config().build());
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      Key k = key(i);
      keys.add(k);
      await(engine.write(live(k, 1, 0, "v" + i, true)));
      if (i % 100 == 99) {
        await(engine.flush());
      }
    }
    keys.sort(null);
    long from = keys.get(50).token();
    long to = keys.get(200).token();
    List<Key> seen = new ArrayList<>();
    try (CellIterator it = engine.scan(from, to)) {
      while (it.hasNext()) {
        seen.add(it.next().key());
      }
    }
    assertEquals(keys.subList(50, 201), seen);
    assertEquals(300, countAll(engine));
  }

  @Test
  void exportImport_movesOnlyChosenStateOfTheRange(@TempDir Path tmp) throws Exception {
    LsmEngine source = open(config().build());
    Key chosen = key("chosen");
    Key notChosen = key("not-chosen");
    Key promiseOnly = key("promise-only");
    await(source.write(live(chosen, 1, 3, "c", true)));
    await(source.write(promise(chosen, 99_999)));
    await(source.write(live(notChosen, 1, 0, "n", false)));
    await(source.write(promise(promiseOnly, 7)));
    List<Path> files = source.exportRange(Long.MIN_VALUE, Long.MAX_VALUE, Path.of("/export"));
    assertEquals(1, files.size());

    FaultyFileSystem targetFs = fs; // same in-memory disk, different directories
    LsmEngine target =
        open(
            LsmConfig.builder(Path.of("/other/data"))
                .commitLogDirectories(List.of(Path.of("/other/cl")))
                .build(),
            targetFs);
    target.importTables(files, Long.MIN_VALUE, Long.MAX_VALUE);
    Cell imported = target.get(chosen);
    assertEquals("c", valueOf(imported));
    assertTrue(imported.accepted().chosen());
    assertEquals(Ballot.NONE, imported.promised(), "the sender's promise is not imported");
    assertNull(target.get(notChosen));
    assertNull(target.get(promiseOnly));
  }

  @Test
  void importOfAKeyOutsideTheRange_importsNothing() throws Exception {
    LsmEngine source = open(config().build());
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      keys.add(key(i));
      await(source.write(live(key(i), 1, 0, "v", true)));
    }
    keys.sort(null);
    List<Path> files = source.exportRange(Long.MIN_VALUE, Long.MAX_VALUE, Path.of("/export"));
    LsmEngine target =
        open(
            LsmConfig.builder(Path.of("/t/data"))
                .commitLogDirectories(List.of(Path.of("/t/cl")))
                .build());
    long narrowTo = keys.get(5).token();
    assertThrows(
        IllegalArgumentException.class, () -> target.importTables(files, Long.MIN_VALUE, narrowTo));
    assertTrue(target.tables().isEmpty());
    assertNull(target.get(keys.get(0)));
  }

  @Test
  void importRingRange_ofAWrappingRange_takesBothEnds_andRefusesTheGap() throws Exception {
    LsmEngine source = open(config().build());
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add(key(i));
      await(source.write(live(key(i), 1, 0, "v" + i, true)));
    }
    keys.sort(null); // token order
    long to = keys.get(9).token(); // (from, to] wraps: keys 0-9 and 30-39 of the token order
    long from = keys.get(29).token();
    List<Path> low = source.exportRange(Long.MIN_VALUE, to, Path.of("/export-low"));
    List<Path> high = source.exportRange(from + 1, Long.MAX_VALUE, Path.of("/export-high"));
    List<Path> both = new ArrayList<>(low);
    both.addAll(high);
    LsmEngine target =
        open(
            LsmConfig.builder(Path.of("/w/data"))
                .commitLogDirectories(List.of(Path.of("/w/cl")))
                .build());
    target.importRingRange(both, from, to);
    for (int i = 0; i < keys.size(); i++) {
      boolean inRange = i <= 9 || i >= 30;
      assertEquals(inRange, target.get(keys.get(i)) != null, "key " + i + " of the token order");
    }

    List<Path> all = source.exportRange(Long.MIN_VALUE, Long.MAX_VALUE, Path.of("/export-all"));
    LsmEngine other =
        open(
            LsmConfig.builder(Path.of("/x/data"))
                .commitLogDirectories(List.of(Path.of("/x/cl")))
                .build());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> other.importRingRange(all, from, to));
    assertTrue(e.getMessage().contains(" or "), e.getMessage());
    assertTrue(other.tables().isEmpty(), "a key in the gap: nothing imported");
    other.importRingRange(all, 5, 5); // equal bounds: the whole ring
    assertEquals(40, countAll(other));
  }

  @Test
  void oldMemtable_isFlushedByLifetime() throws Exception {
    LsmEngine engine = open(config().memtableLifetime(Duration.ofMinutes(30)).build());
    await(engine.write(live(key("k"), 1, 0, "v", true)));
    engine.runMaintenance();
    assertTrue(engine.tables().isEmpty());
    clockMs.addAndGet(Duration.ofMinutes(30).toMillis());
    engine.runMaintenance();
    waitUntil(() -> engine.tables().size() == 1, "lifetime flush");
  }

  @Test
  void heapPressure_flushesALargeEnoughMemtable() throws Exception {
    LsmEngine engine =
        open(
            config()
                .minFlushLargestMemtableBytes(4096)
                .flushLargestMemtablesHeapFraction(0.9)
                .build());
    double[] heap = {0.95};
    engine.heapUsedFraction(() -> heap[0]);
    await(engine.write(live(key("small"), 1, 0, "v", true)));
    engine.runMaintenance();
    assertTrue(engine.tables().isEmpty(), "below min_flush_largest_memtable: no flush");
    for (int i = 0; i < 50; i++) {
      await(engine.write(live(key(i), 1, 0, "x".repeat(200), true)));
    }
    heap[0] = 0.5;
    engine.runMaintenance();
    assertTrue(engine.tables().isEmpty(), "no pressure: no flush");
    heap[0] = 0.95;
    engine.runMaintenance();
    waitUntil(() -> engine.tables().size() == 1, "heap-pressure flush");
  }

  @Test
  void metrics_reportFlushesTablesAndBloomFilters() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LsmEngine engine = LsmEngine.open(config().build(), fs, registry, clockMs::get);
    open.add(engine);
    for (int i = 0; i < 100; i++) {
      await(engine.write(live(key(i), 1, 0, "v", true)));
    }
    await(engine.flush());
    for (int i = 0; i < 1000; i++) {
      engine.get(key("absent-" + i));
    }
    assertTrue(registry.get("frsm.lsm.flush.bytes").counter().count() > 0);
    assertEquals(1.0, registry.get("frsm.lsm.sstable.count").gauge().value());
    double negatives = registry.get("frsm.sstable.bloom.negatives").counter().count();
    double falsePositives = registry.get("frsm.sstable.bloom.false.positives").counter().count();
    assertTrue(negatives + falsePositives >= 900, negatives + " + " + falsePositives);
    assertTrue(falsePositives < 50, "false positives " + falsePositives);
    assertTrue(
        registry.get("frsm.commitlog.sync.latency").timers().stream().anyMatch(t -> t.count() > 0));
  }

  @Test
  void commitLogOverItsBound_flushesAndDiscardsSegments() throws Exception {
    LsmEngine engine =
        open(
            config()
                .commitLogRotationThresholdBytes(4096)
                .maxCommitLogSizeOnDiskBytes(16 * 1024)
                .build());
    for (int i = 0; i < 200; i++) {
      await(engine.write(live(key(i), 1, 0, "x".repeat(200), true)));
    }
    assertTrue(engine.commitLogBytes() > 16 * 1024);
    engine.runMaintenance();
    waitUntil(() -> engine.commitLogBytes() < 16 * 1024, "commit-log discard after flush");
    assertFalse(engine.tables().isEmpty());
    assertEquals("x".repeat(200), valueOf(engine.get(key(7))));
  }

  @Test
  void realDisk_roundTrip(@TempDir Path tmp) throws Exception {
    LsmEngine engine =
        open(
            LsmConfig.builder(tmp.resolve("data"))
                .commitLogDirectories(List.of(tmp.resolve("cl0"), tmp.resolve("cl1")))
                .build(),
            NioFileSystem.INSTANCE);
    for (int i = 0; i < 1000; i++) {
      await(
          engine.write(
              Cell.accepted(
                  key(i),
                  AcceptedValue.live(1, i, new Ballot(i + 1, 0, 0), new byte[512], true),
                  0)));
    }
    await(engine.flush());
    engine.close();
    LsmEngine reopened =
        open(
            LsmConfig.builder(tmp.resolve("data"))
                .commitLogDirectories(List.of(tmp.resolve("cl0"), tmp.resolve("cl1")))
                .build(),
            NioFileSystem.INSTANCE);
    for (int i = 0; i < 1000; i++) {
      assertEquals(i, reopened.get(key(i)).accepted().timestamp());
    }
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  static void waitUntil(Condition condition, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }
}
