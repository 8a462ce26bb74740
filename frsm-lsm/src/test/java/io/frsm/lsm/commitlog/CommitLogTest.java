package io.frsm.lsm.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.lsm.io.FaultyFileSystem;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Appending, group commit, rotation, failures and lifecycle, on the in-memory faulty disk. */
class CommitLogTest {
  private static final Path DIR0 = Path.of("/log/stripe0");
  private static final Path DIR1 = Path.of("/log/stripe1");
  private static final Path DIR2 = Path.of("/log/stripe2");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<CommitLog> opened = new ArrayList<>();

  @AfterEach
  void closeLogs() {
    opened.forEach(CommitLog::close);
  }

  private CommitLog open(io.frsm.lsm.io.FileSystem fileSystem, CommitLogConfig config)
      throws IOException {
    CommitLog log = CommitLog.open(fileSystem, config, registry, c -> {});
    opened.add(log);
    return log;
  }

  private static void await(CompletableFuture<?> future) throws Exception {
    future.get(10, TimeUnit.SECONDS);
  }

  private static IOException failure(CompletableFuture<?> future) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    return assertInstanceOf(IOException.class, e.getCause());
  }

  /**
   * The segment files of a stripe directory. While the log is open a spare segment may sit beside
   * them ({@link SegmentPreallocator}), created in the background: never count it.
   */
  private List<Path> segments(Path dir) throws IOException {
    List<Path> segments = new ArrayList<>();
    for (Path p : fs.list(dir)) {
      if (CommitLogSegment.parseId(p) >= 0) {
        segments.add(p);
      }
    }
    return segments;
  }

  private long segmentBytesOnDisk(Path... dirs) throws IOException {
    long total = 0;
    for (Path dir : dirs) {
      for (Path p : segments(dir)) {
        total += fs.size(p);
      }
    }
    return total;
  }

  @Test
  void pendingRecords_tellTheirListenerOnce_whenSyncedOrAtOnceIfDone_andAThrowingOneStopsNothing()
      throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    CommitLog log = open(gated, CommitLogConfig.builder(List.of(DIR0)).build());
    LinkedBlockingQueue<String> told = new LinkedBlockingQueue<>();
    gated.close();
    CommitLog.PendingRecord first = log.appendPending(TestCells.cell(0));
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    first.whenSynced(
        failure -> {
          told.add("first " + failure + " on " + Thread.currentThread().getName());
          throw new IllegalStateException("a listener's bug must not stop the stripe");
        });
    CommitLog.PendingRecord second = log.appendPending(TestCells.cell(1));
    second.whenSynced(failure -> told.add("second " + failure));
    assertEquals(List.of(), List.copyOf(told), "not told before the sync");
    gated.open();
    assertEquals(
        "first null on frsm-commitlog-stripe-0", told.poll(10, TimeUnit.SECONDS), "on the writer");
    assertEquals("second null", told.poll(10, TimeUnit.SECONDS));
    // Synced before its listener came: told on the calling thread, at once.
    CommitLog.PendingRecord third = log.appendPending(TestCells.cell(2));
    await((CompletableFuture<?>) third);
    third.whenSynced(failure -> told.add("third " + failure + " on " + Thread.currentThread()));
    assertEquals("third null on " + Thread.currentThread(), told.poll());
    log.close();
    // Failed at once by a closed log: told the failure.
    log.appendPending(TestCells.cell(3)).whenSynced(failure -> told.add("closed " + failure));
    assertEquals("closed java.io.IOException: commit log is closed", told.poll());
    assertEquals(List.of(), List.copyOf(told), "each told once");
    assertEquals(
        List.of(TestCells.cell(0), TestCells.cell(1), TestCells.cell(2)),
        SegmentFiles.replay(fs, CommitLogConfig.builder(List.of(DIR0)).build()));
  }

  @Test
  void aRecordSeenDone_tellsALateListenerAtOnce_onTheCallingThread_everyTime() throws Exception {
    // The writer completes records while callers watch their futures: a caller that saw its record
    // done must never find its listener left for the writer to call later (it once was, between
    // the future's completion and the listener slot's swap).
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0)).build());
    Thread caller = Thread.currentThread();
    for (int i = 0; i < 2_000; i++) {
      CommitLog.PendingRecord record = log.appendPending(TestCells.cell(i));
      await((CompletableFuture<?>) record);
      Thread[] toldOn = new Thread[1];
      record.whenSynced(failure -> toldOn[0] = Thread.currentThread());
      assertEquals(caller, toldOn[0], "record " + i + " told at once on the caller");
    }
    log.close();
  }

  @Test
  void segmentsRotateAtSegmentSize_andNoRecordSpansTwo() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0)).segmentSizeBytes(1024).build();
    CommitLog log = open(fs, config);
    List<Cell> cells = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      cells.add(TestCells.cell(i, 50));
      await(log.append(cells.get(i)));
    }
    log.close();
    List<Path> segments = fs.list(DIR0);
    assertTrue(segments.size() >= 5, "60 records of ~80 bytes need several 1 KiB segments");
    for (Path segment : segments) {
      assertTrue(fs.size(segment) <= 1024, segment + " is " + fs.size(segment) + " bytes");
    }
    assertEquals(cells, SegmentFiles.replay(fs, config), "every record whole, in order");
  }

  @Test
  void recordLargerThanSegmentSize_goesAloneIntoASegment() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0)).segmentSizeBytes(1024).build();
    CommitLog log = open(fs, config);
    Cell small = TestCells.cell(1);
    Cell big = TestCells.cell(2, 5000);
    Cell after = TestCells.cell(3);
    await(log.append(small));
    await(log.append(big));
    await(log.append(after));
    log.close();
    List<Path> segments = fs.list(DIR0);
    long bigSegmentBytes =
        SegmentHeader.BYTES + RecordFormat.recordBytes(CellCodec.encodedSize(big));
    assertEquals(3, segments.size());
    assertEquals(bigSegmentBytes, fs.size(segments.get(1)), "the big record alone");
    assertEquals(List.of(small, big, after), SegmentFiles.replay(fs, config));
  }

  @Test
  void recordLargerThanBatchBuffer_isWrittenAlone() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0)).maxBatchBytes(1024).build();
    CommitLog log = open(fs, config);
    List<Cell> cells = List.of(TestCells.cell(1), TestCells.cell(2, 10_000), TestCells.cell(3));
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    cells.forEach(c -> acks.add(log.append(c)));
    for (CompletableFuture<Void> ack : acks) {
      await(ack);
    }
    log.close();
    assertEquals(cells, SegmentFiles.replay(fs, config));
  }

  @Test
  void totalSizeBytes_accountsEveryStripe_andOverSizeLimitFollowsIt() throws Exception {
    CommitLogConfig config =
        CommitLogConfig.builder(List.of(DIR0, DIR1, DIR2))
            .segmentSizeBytes(1024)
            .maxTotalSizeBytes(4096)
            .build();
    CommitLog log = open(fs, config);
    assertEquals(segmentBytesOnDisk(DIR0, DIR1, DIR2), log.totalSizeBytes());
    assertEquals(3L * SegmentHeader.BYTES, log.totalSizeBytes(), "one fresh segment per stripe");
    assertFalse(log.overSizeLimit());
    for (int i = 0; i < 100 && !log.overSizeLimit(); i++) {
      await(log.append(TestCells.cell(i, 40)));
      assertEquals(segmentBytesOnDisk(DIR0, DIR1, DIR2), log.totalSizeBytes());
    }
    assertTrue(log.overSizeLimit());
    assertTrue(log.totalSizeBytes() > 4096);
    log.discardBefore(log.rotate());
    assertEquals(segmentBytesOnDisk(DIR0, DIR1, DIR2), log.totalSizeBytes());
    assertFalse(log.overSizeLimit(), "discarding frees the space");
  }

  @Test
  void groupCommit_recordsQueuedDuringASyncShareTheNextSync() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    CommitLog log = open(gated, CommitLogConfig.builder(List.of(DIR0)).build());
    long syncsBefore = fs.syncCount();
    gated.close();
    CompletableFuture<Void> first = log.append(TestCells.cell(0));
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    List<CompletableFuture<Void>> queued = new ArrayList<>();
    for (int i = 1; i <= 99; i++) {
      queued.add(log.append(TestCells.cell(i)));
    }
    assertFalse(first.isDone(), "not acknowledged before its sync");
    gated.open();
    await(first);
    for (CompletableFuture<Void> ack : queued) {
      await(ack);
    }
    DistributionSummary batches =
        registry.get("frsm.commitlog.batch.records").tag("stripe", "0").summary();
    assertEquals(2, batches.count(), "one batch blocked in its sync, one for all the rest");
    assertEquals(99, batches.max());
    assertEquals(2, fs.syncCount() - syncsBefore, "exactly one sync per batch");
  }

  @Test
  void groupCommit_concurrentAppenders_oneSyncPerBatch() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0, DIR1)).build());
    long syncsBefore = fs.syncCount();
    int threads = 16;
    int perThread = 200;
    ConcurrentAppenders.append(log, threads, perThread);
    long batches = 0;
    double records = 0;
    for (DistributionSummary s : registry.find("frsm.commitlog.batch.records").summaries()) {
      batches += s.count();
      records += s.totalAmount();
    }
    assertEquals(threads * perThread, (long) records);
    assertEquals(batches, fs.syncCount() - syncsBefore, "exactly one sync per batch");
    assertTrue(batches <= threads * perThread);
  }

  @Test
  void diskFull_failsTheBatchWithADiskFullMessage_andTheStripeRecoversWhenSpaceReturns()
      throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0)).build();
    CommitLog log = open(fs, config);
    List<Cell> acknowledged = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      acknowledged.add(TestCells.cell(i));
      await(log.append(acknowledged.get(i)));
    }
    fs.setCapacityBytes(fs.usedBytes());
    IOException full = failure(log.append(TestCells.cell(100)));
    assertTrue(full.getMessage().contains("write failed"), full.getMessage());
    assertTrue(full.getMessage().contains("No space left on device"), full.getMessage());
    IOException stillFull = failure(log.append(TestCells.cell(101)));
    assertTrue(stillFull.getMessage().contains("No space left on device"), stillFull.getMessage());

    fs.setCapacityBytes(Long.MAX_VALUE);
    for (int i = 200; i < 210; i++) {
      acknowledged.add(TestCells.cell(i));
      await(log.append(TestCells.cell(i)));
    }
    assertEquals(
        2,
        registry.get("frsm.commitlog.batches.failed").counter().count(),
        "the failed write, then the failed attempt to start a new segment");
    log.close();
    fs.crash();
    assertEquals(new HashSet<>(acknowledged), new HashSet<>(SegmentFiles.replay(fs, config)));
  }

  @Test
  void syncFailure_failsTheBatch_andTheStripeRecoversOnANewSegment() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0)).build();
    CommitLog log = open(fs, config);
    Cell before = TestCells.cell(1);
    await(log.append(before));
    fs.setFailSyncs(true);
    IOException failed = failure(log.append(TestCells.cell(2)));
    assertTrue(failed.getMessage().contains("write failed"), failed.getMessage());
    assertTrue(failed.getMessage().contains("Input/output error"), failed.getMessage());
    fs.setFailSyncs(false);
    Cell after = TestCells.cell(3);
    await(log.append(after));
    assertEquals(2, segments(DIR0).size(), "the damaged segment was abandoned for a new one");
    log.close();
    fs.crash();
    Set<Cell> replayed = new HashSet<>(SegmentFiles.replay(fs, config));
    assertTrue(replayed.contains(before));
    assertTrue(replayed.contains(after));
  }

  @Test
  void rotate_putsEveryEarlierRecordBelowTheCheckpoint_andDiscardDropsOnlyThose() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0, DIR1)).build();
    CommitLog log = open(fs, config);
    List<CompletableFuture<Void>> early = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      early.add(log.append(TestCells.cell(i))); // not awaited: rotate must order them itself
    }
    CommitLogCheckpoint checkpoint = log.rotate();
    assertTrue(early.stream().allMatch(CompletableFuture::isDone), "rotation waits for them");
    Set<Cell> late = new HashSet<>();
    for (int i = 50; i < 80; i++) {
      late.add(TestCells.cell(i));
      await(log.append(TestCells.cell(i)));
    }
    log.discardBefore(checkpoint);
    for (Path dir : List.of(DIR0, DIR1)) {
      for (Path segment : segments(dir)) {
        assertTrue(CommitLogSegment.parseId(segment) >= checkpoint.segmentId(dir == DIR0 ? 0 : 1));
      }
    }
    log.close();
    fs.crash();
    assertEquals(late, new HashSet<>(SegmentFiles.replay(fs, config)));
  }

  @Test
  void rotateWithoutNewRecords_keepsTheEmptySegment() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0)).build());
    CommitLogCheckpoint first = log.rotate();
    assertEquals(first, log.rotate(), "no empty segments pile up on an idle stripe");
    log.discardBefore(first);
    assertEquals(1, segments(DIR0).size(), "the current segment is never deleted");
  }

  @Test
  void replayCheckpoint_coversExactlyTheReplayedSegments() throws Exception {
    CommitLogConfig config = CommitLogConfig.builder(List.of(DIR0, DIR1)).build();
    CommitLog first = open(fs, config);
    for (int i = 0; i < 20; i++) {
      await(first.append(TestCells.cell(i)));
    }
    first.close();
    List<Cell> replayed = new ArrayList<>();
    CommitLog second = CommitLog.open(fs, config, registry, replayed::add);
    opened.add(second);
    assertEquals(20, replayed.size());
    Cell fresh = TestCells.cell(99);
    await(second.append(fresh));
    second.discardBefore(second.replayCheckpoint());
    second.close();
    assertEquals(List.of(fresh), SegmentFiles.replay(fs, config));
  }

  @Test
  void discardBefore_rejectsACheckpointFromAnotherLog() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0)).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> log.discardBefore(new CommitLogCheckpoint(new long[] {1, 1})));
    assertThrows(
        IllegalArgumentException.class,
        () -> log.discardBefore(new CommitLogCheckpoint(new long[] {1000})));
  }

  @Test
  void close_completesEveryPendingFuture_andStopsTheWriterThreads() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    CommitLog log = open(gated, CommitLogConfig.builder(List.of(DIR0, DIR1)).build());
    gated.close();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      pending.add(log.append(TestCells.cell(i)));
    }
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    ExecutorService closer = Executors.newSingleThreadExecutor();
    try {
      Future<?> closed = closer.submit(log::close);
      gated.open();
      closed.get(10, TimeUnit.SECONDS);
    } finally {
      closer.shutdownNow();
      assertTrue(closer.awaitTermination(10, TimeUnit.SECONDS));
    }
    for (CompletableFuture<Void> f : pending) {
      assertTrue(f.isDone() && !f.isCompletedExceptionally(), "drained and synced");
    }
    assertTrue(
        Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.getName().startsWith("frsm-commitlog-stripe")),
        "no writer thread left");
  }

  @Test
  void uncheckedExceptionInTheWriter_failsEveryFuture_insteadOfStrandingThem() throws Exception {
    SyncGateFileSystem buggy = new SyncGateFileSystem(fs);
    CommitLog log = open(buggy, CommitLogConfig.builder(List.of(DIR0)).build());
    buggy.throwOnWrite(new IllegalStateException("bug below the commit log"));
    IOException first = failure(log.append(TestCells.cell(1)));
    assertInstanceOf(IllegalStateException.class, first.getCause());
    IOException later = failure(log.append(TestCells.cell(2)));
    assertTrue(later.getMessage().contains("writer died"), later.getMessage());
    assertThrows(IOException.class, log::rotate);
    log.close();
  }

  @Test
  void appendAfterClose_failsWithIOException() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0)).build());
    log.close();
    IOException e = failure(log.append(TestCells.cell(1)));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IOException.class, log::rotate);
  }

  @Test
  void awaitSynced_completesOnlyAfterThePendingSyncOfTheKeysStripe() throws Exception {
    SyncGateFileSystem gated = new SyncGateFileSystem(fs);
    CommitLog log = open(gated, CommitLogConfig.builder(List.of(DIR0, DIR1)).build());
    Cell cell = TestCells.cell(7);
    gated.close();
    CompletableFuture<Void> write = log.append(cell);
    assertTrue(gated.awaitBlockedSync(10, TimeUnit.SECONDS));
    CompletableFuture<Void> read = log.awaitSynced(cell.key());
    assertFalse(read.isDone());
    gated.open();
    await(read);
    assertTrue(write.isDone());
    await(log.awaitSynced(cell.key())); // nothing pending: completes without I/O
  }

  @Test
  void sameKey_alwaysGoesToTheSameStripe() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0, DIR1, DIR2)).build());
    Cell cell = TestCells.cell(5);
    assertEquals(Math.floorMod(cell.key().token(), 3), log.stripeOf(cell.key()));
    assertEquals(3, log.stripeCount());
  }

  @Test
  void cellLargerThanTheRecordLimit_isRejectedAtAppend() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0)).build());
    Cell huge = TestCells.cell(1, RecordFormat.MAX_PAYLOAD_BYTES);
    assertThrows(IllegalArgumentException.class, () -> log.append(huge));
  }

  @Test
  void metrics_reportSyncsBatchesBytesAndSizePerStripe_andAreRemovedOnClose() throws Exception {
    CommitLog log = open(fs, CommitLogConfig.builder(List.of(DIR0, DIR1)).build());
    for (int i = 0; i < 20; i++) {
      await(log.append(TestCells.cell(i)));
    }
    double sizeGauges = 0;
    long syncs = 0;
    double bytes = 0;
    for (String stripe : List.of("0", "1")) {
      sizeGauges += registry.get("frsm.commitlog.size.bytes").tag("stripe", stripe).gauge().value();
      syncs += registry.get("frsm.commitlog.sync.latency").tag("stripe", stripe).timer().count();
      bytes += registry.get("frsm.commitlog.bytes.written").tag("stripe", stripe).counter().count();
    }
    assertEquals(log.totalSizeBytes(), (long) sizeGauges);
    assertEquals(20, syncs, "one sync per awaited append");
    assertEquals(log.totalSizeBytes() - 2L * SegmentHeader.BYTES, (long) bytes);
    log.close();
    assertTrue(registry.find("frsm.commitlog.size.bytes").meters().isEmpty());
  }
}
