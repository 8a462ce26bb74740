package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.FaultyFileSystem;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group-commit window: who waits, what shares the sync, and that a window never strands a
 * record. The window's wait is a test double the test opens and closes, so no test depends on
 * timing.
 */
class GroupCommitWindowTest {
  private static final Path DIR = Path.of("/log/stripe0");
  private static final Duration WINDOW = Duration.ofMillis(20);

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<CommitLog> opened = new ArrayList<>();

  @AfterEach
  void closeLogs() {
    opened.forEach(CommitLog::close);
  }

  /** A window the test controls: it reports when the writer enters and ends when released. */
  private static final class HeldWindow implements GroupCommitGatherer.WindowWait {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger waits = new AtomicInteger();

    @Override
    public void until(long windowNanos, BooleanSupplier stop) {
      waits.incrementAndGet();
      entered.countDown();
      long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      try {
        while (!stop.getAsBoolean() && !release.await(1, TimeUnit.MILLISECONDS)) {
          if (System.nanoTime() - giveUp > 0) {
            return; // never hang the build: the test then fails on its own assertions
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * A window that ends at once, after running the next scripted action on the writer's thread (an
   * append there lands in the queue while the window is open, as a concurrent writer's would).
   */
  private static final class ScriptedWindow implements GroupCommitGatherer.WindowWait {
    final java.util.Queue<Runnable> actions = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final AtomicInteger waits = new AtomicInteger();
    final java.util.Queue<Long> windows = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public void until(long windowNanos, BooleanSupplier stop) {
      waits.incrementAndGet();
      windows.add(windowNanos);
      Runnable action = actions.poll();
      if (action != null) {
        action.run();
      }
    }
  }

  /**
   * Makes the writer drain exactly two records at once: the first record holds it in its sync while
   * two more queue. Returns once all three are synced.
   */
  private static void drainTwoAtOnce(CommitLog log, SyncGateFileSystem gated, int base)
      throws Exception {
    for (CompletableFuture<Void> ack : twoQueuedBehindASync(log, gated, base)) {
      await(ack);
    }
  }

  /**
   * Holds the writer in the sync of one record while two more queue, then lets it go: its next
   * drain finds two records, so a window may open. Returns {@code [first, second, third]}.
   */
  private static List<CompletableFuture<Void>> twoQueuedBehindASync(
      CommitLog log, SyncGateFileSystem gated, int base) throws Exception {
    gated.close();
    CompletableFuture<Void> first = log.append(TestCells.cell(base));
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    CompletableFuture<Void> second = log.append(TestCells.cell(base + 1));
    CompletableFuture<Void> third = log.append(TestCells.cell(base + 2));
    gated.open();
    return List.of(first, second, third);
  }

  /**
   * Scripts the next {@code windows} windows to gather one record each (cells 1000 and up), so that
   * each pays and the next opens without probing; returns their acknowledgements.
   */
  private static List<CompletableFuture<Void>> gatherOneInEachWindow(
      ScriptedWindow window, CommitLog log, int windows) {
    List<CompletableFuture<Void>> gathered = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < windows; i++) {
      int cell = 1000 + i;
      window.actions.add(() -> gathered.add(log.append(TestCells.cell(cell))));
    }
    return gathered;
  }

  private CommitLog open(io.frsm.lsm.io.FileSystem fileSystem, GroupCommitGatherer.WindowWait wait)
      throws IOException {
    return open(fileSystem, wait, GroupCommitWindow.fixed(WINDOW));
  }

  private CommitLog open(
      io.frsm.lsm.io.FileSystem fileSystem,
      GroupCommitGatherer.WindowWait wait,
      GroupCommitWindow groupCommitWindow)
      throws IOException {
    CommitLogConfig config =
        CommitLogConfig.builder(List.of(DIR)).groupCommitWindow(groupCommitWindow).build();
    CommitLog log = CommitLog.open(fileSystem, config, registry, c -> {}, wait);
    opened.add(log);
    return log;
  }

  private static void await(CompletableFuture<?> future) throws Exception {
    future.get(10, TimeUnit.SECONDS);
  }

  private DistributionSummary batches() {
    return registry.get("frsm.commitlog.batch.records").tag("stripe", "0").summary();
  }

  private double windows() {
    return registry.get("frsm.commitlog.group.window").tag("stripe", "0").timer().count();
  }

  @Test
  void twoQueuedRecords_waitOutTheWindow_andRecordsQueuedMeanwhileShareTheirSync()
      throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    HeldWindow window = new HeldWindow();
    CommitLog log = open(gated, window);
    long syncsBefore = fs.syncCount();

    List<CompletableFuture<Void>> acks = twoQueuedBehindASync(log, gated, 0);
    CompletableFuture<Void> first = acks.get(0);
    List<CompletableFuture<Void>> queued = acks.subList(1, 3);
    await(first);
    assertTrue(window.entered.await(10, TimeUnit.SECONDS), "two queued records open a window");

    List<CompletableFuture<Void>> meanwhile =
        List.of(log.append(TestCells.cell(3)), log.append(TestCells.cell(4)));
    for (CompletableFuture<Void> ack : queued) {
      assertFalse(ack.isDone(), "not acknowledged before the window ends and the batch syncs");
    }
    window.release.countDown();
    for (CompletableFuture<Void> ack : queued) {
      await(ack);
    }
    for (CompletableFuture<Void> ack : meanwhile) {
      await(ack);
    }

    assertEquals(1, window.waits.get());
    assertEquals(1.0, windows());
    assertEquals(2, batches().count(), "the lone first record, then one batch for the other four");
    assertEquals(4, batches().max());
    assertEquals(2, fs.syncCount() - syncsBefore, "exactly one sync per batch");
  }

  @Test
  void aLoneRecord_neverWaits() throws Exception {
    HeldWindow window = new HeldWindow(); // never released: a record that waited would hang
    CommitLog log = open(fs, window);
    for (int i = 0; i < 20; i++) {
      await(log.append(TestCells.cell(i)));
    }
    assertEquals(0, window.waits.get());
    assertEquals(0.0, windows());
    assertEquals(20, batches().count());
  }

  @Test
  void aBarrierIsNoRecord_aRecordAndABarrierDoNotWait() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    HeldWindow window = new HeldWindow();
    CommitLog log = open(gated, window);
    Cell cell = TestCells.cell(9);
    gated.close();
    CompletableFuture<Void> first = log.append(TestCells.cell(0));
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    CompletableFuture<Void> write = log.append(cell);
    CompletableFuture<Void> read = log.awaitSynced(cell.key());
    gated.open();
    await(first);
    await(write);
    await(read);
    assertEquals(0, window.waits.get());
  }

  @Test
  void windowsThatGatherNothing_areSkipped_butProbedEvery16thTime() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    ScriptedWindow window = new ScriptedWindow(); // gathers nothing: no action scripted
    CommitLog log = open(gated, window);
    for (int i = 0; i < 33; i++) {
      drainTwoAtOnce(log, gated, 3 * i);
    }
    // The first eligible drain opens a window (the average starts at the pay-off); it gathers
    // nothing, so the next 15 skip theirs and the 16th probes: drains 1, 17 and 33 waited.
    assertEquals(1 + 32 / GroupCommitGatherer.PROBE_EVERY, window.waits.get());
    assertEquals(3.0, windows());
  }

  @Test
  void aProbeThatGathers_reopensTheWindowAtOnce() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    ScriptedWindow window = new ScriptedWindow();
    CommitLog log = open(gated, window);
    List<CompletableFuture<Void>> gathered = new ArrayList<>();
    window.actions.add(() -> {}); // drain 1: gathers nothing
    window.actions.add( // drain 17, the probe: six records arrive while it waits
        () -> {
          for (int i = 0; i < 6; i++) {
            gathered.add(log.append(TestCells.cell(1000 + i)));
          }
        });
    for (int i = 0; i < 17; i++) {
      drainTwoAtOnce(log, gated, 3 * i);
    }
    assertEquals(2, window.waits.get(), "drain 1 and the probe at drain 17");
    for (CompletableFuture<Void> ack : gathered) {
      await(ack);
    }
    assertEquals(6.0, registry.get("frsm.commitlog.group.window.records").summary().max());
    assertEquals(8, batches().max(), "the probe's two records and the six it gathered");

    drainTwoAtOnce(log, gated, 3 * 17);
    assertEquals(3, window.waits.get(), "the window pays again: drain 18 waits without probing");
  }

  @Test
  void anUncheckedExceptionInAWindow_failsItsRecords_insteadOfStrandingThem() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    CommitLog log =
        open(
            gated,
            (window, stop) -> {
              throw new IllegalStateException("bug in the window");
            });
    List<CompletableFuture<Void>> acks = twoQueuedBehindASync(log, gated, 0);
    await(acks.get(0)); // synced before any window
    for (CompletableFuture<Void> ack : acks.subList(1, 3)) {
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> ack.get(10, TimeUnit.SECONDS));
      assertInstanceOf(IllegalStateException.class, e.getCause().getCause());
    }
    ExecutionException later =
        assertThrows(
            ExecutionException.class,
            () -> log.append(TestCells.cell(9)).get(10, TimeUnit.SECONDS));
    assertTrue(later.getCause().getMessage().contains("writer died"), later.getMessage());
  }

  @Test
  void closingDuringAWindow_endsIt_andSyncsEveryRecord() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    HeldWindow window = new HeldWindow(); // never released: only the shutdown ends it
    CommitLog log = open(gated, window);
    List<CompletableFuture<Void>> acks = twoQueuedBehindASync(log, gated, 0);
    CompletableFuture<Void> first = acks.get(0);
    List<CompletableFuture<Void>> queued = acks.subList(1, 3);
    assertTrue(window.entered.await(10, TimeUnit.SECONDS));
    DistributionSummary batches = batches(); // closing removes the stripe's meters

    assertTimeoutPreemptively(Duration.ofSeconds(10), log::close);
    await(first);
    for (CompletableFuture<Void> ack : queued) {
      await(ack); // synced, not failed: they were queued before the close
    }
    assertEquals(2, batches.count());
  }

  @Test
  void parkedWindow_lastsItsLength_orUntilStopped() {
    long window = TimeUnit.MILLISECONDS.toNanos(2);
    long start = System.nanoTime();
    GroupCommitGatherer.WindowWait.PARK.until(window, () -> false);
    assertTrue(System.nanoTime() - start >= window, "returned before the window ended");

    long anHour = TimeUnit.HOURS.toNanos(1);
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> GroupCommitGatherer.WindowWait.PARK.until(anHour, () -> true));
  }

  @Test
  void anAdaptiveWindow_lastsTwiceTheStripesSyncTime_withinItsLimit() throws Exception {
    Duration limit = Duration.ofMillis(100);
    List<Long> windows = windowsOnASlowDevice(new GroupCommitWindow(limit, true), 5);
    Timer syncs = registry.get("frsm.commitlog.sync.latency").tag("stripe", "0").timer();
    double longestSync = syncs.max(TimeUnit.NANOSECONDS);
    assertEquals(5, windows.size(), "each drain of two opened a window");
    for (long w : windows) {
      // The window is twice a moving average of the syncs so far, each of which lasted 10 ms or
      // more (the slow device) and at most the longest the timer saw.
      assertTrue(w >= TimeUnit.MILLISECONDS.toNanos(20), "twice a sync of >= 10 ms, was " + w);
      assertTrue(w <= Math.min(limit.toNanos(), 2 * longestSync), "window " + w);
    }
  }

  @Test
  void anAdaptiveWindow_neverExceedsItsLimit_howeverSlowTheSyncs() throws Exception {
    Duration limit = Duration.ofMillis(5);
    assertEquals(
        List.of(limit.toNanos(), limit.toNanos(), limit.toNanos()),
        windowsOnASlowDevice(new GroupCommitWindow(limit, true), 3));
  }

  /**
   * On a device whose syncs last at least 10 ms, makes {@code drains} drains of two records, each
   * window gathering one more; returns the length of each window the writer asked for.
   */
  private List<Long> windowsOnASlowDevice(GroupCommitWindow setting, int drains) throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    gated.slowSyncs(TimeUnit.MILLISECONDS.toNanos(10));
    ScriptedWindow window = new ScriptedWindow();
    CommitLog log = open(gated, window, setting);
    List<CompletableFuture<Void>> gathered = gatherOneInEachWindow(window, log, drains);
    for (int i = 0; i < drains; i++) {
      drainTwoAtOnce(log, gated, 3 * i);
    }
    for (CompletableFuture<Void> ack : gathered) {
      await(ack);
    }
    return List.copyOf(window.windows);
  }

  @Test
  void aFixedWindow_ignoresTheSyncTime() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    gated.slowSyncs(TimeUnit.MILLISECONDS.toNanos(10));
    ScriptedWindow window = new ScriptedWindow();
    CommitLog log = open(gated, window);
    drainTwoAtOnce(log, gated, 0);
    assertEquals(List.of(WINDOW.toNanos()), List.copyOf(window.windows));
  }

  @Test
  void concurrentAppendersWithARealWindow_everyAcknowledgedRecordReplays() throws Exception {
    CommitLog log = open(fs, GroupCommitGatherer.WindowWait.PARK);
    int threads = 8;
    int perThread = 100;
    ConcurrentAppenders.append(log, threads, perThread);
    log.close();

    Set<Cell> replayed = new HashSet<>();
    CommitLog reopened =
        CommitLog.open(
            fs,
            CommitLogConfig.builder(List.of(DIR)).build(),
            new SimpleMeterRegistry(),
            replayed::add);
    opened.add(reopened);
    for (int i = 0; i < threads * perThread; i++) {
      assertTrue(replayed.contains(TestCells.cell(i)), "record " + i + " was acknowledged");
    }
  }
}
