package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * One stripe of the commit log: a directory of segments and the single writer thread that
 * group-commits into it. The writer takes everything queued, writes it with one {@link
 * WritableFile#write} per batch of at most {@link CommitLogConfig#maxBatchBytes()}, syncs once, and
 * only then completes the batch's futures. Appending threads never touch the file.
 *
 * <p>With a group-commit window ({@link CommitLogConfig#groupCommitWindow()}), a drain that finds
 * two or more records waits out the window first and adds what was queued meanwhile to the same
 * group commit. Appenders do not wake the writer during the window: it drains when the window ends.
 * When a drain waits is {@link GroupCommitGatherer}'s call; the segments the writer rolls through
 * are {@link StripeSegments}'.
 *
 * <p>After a failed write or sync the stripe abandons the segment (it keeps the records synced
 * before, and replay treats the failed batch's partial bytes as a torn tail) and opens a new one
 * for the next batch, so a disk that fills up and frees again costs the failed batch only.
 *
 * <p>Thread-safety: {@link #append}, {@link #rotate}, {@link #discardBefore} and the size methods
 * are safe from any thread; the fields marked "writer thread" are confined to the writer (before
 * {@link #start} to the opening thread, ordered by {@link Thread#start}).
 */
final class CommitLogStripe {
  private static final System.Logger LOG = System.getLogger(CommitLogStripe.class.getName());

  private final int index;
  private final StripeQueue queue = new StripeQueue();
  private final Thread writer;
  private volatile boolean shutdownRequested;
  private final GroupCommitGatherer gatherer;
  private final StripeSegments segments;
  private final StripeMeters meters;

  // Writer thread.
  private final ByteBuffer batchBuffer;
  private final CRC32C crc = new CRC32C();
  private StripeRequest.Append batchHead;
  private StripeRequest.Append batchTail;
  private int batchRecords;

  /**
   * @param existing the segments replay kept in {@code directory}
   * @param highestExistingId new segments get higher ids than this
   */
  CommitLogStripe(
      int index,
      Path directory,
      FileSystem fs,
      CommitLogConfig config,
      MeterRegistry registry,
      List<CommitLogSegment> existing,
      long highestExistingId,
      GroupCommitGatherer.WindowWait windowWait) {
    this.index = index;
    this.batchBuffer = ByteBuffer.allocateDirect(config.maxBatchBytes());
    this.meters = new StripeMeters(registry, index);
    this.segments =
        new StripeSegments(index, directory, fs, config, existing, highestExistingId, meters);
    meters.gaugeSize(this);
    this.gatherer =
        new GroupCommitGatherer(
            config.groupCommitWindow(), windowWait, queue, () -> shutdownRequested, meters);
    this.writer = new Thread(this::runWriter, "frsm-commitlog-stripe-" + index);
    this.writer.setDaemon(true);
  }

  /** Opens the first segment (so that an unwritable directory fails the open) and starts. */
  void start() throws IOException {
    segments.openFirst();
    writer.start();
  }

  int index() {
    return index;
  }

  void append(StripeRequest.Append request) {
    enqueue(request);
  }

  /** Queues a rotation; completes with this stripe's checkpoint id. */
  StripeRequest.Rotate rotate() {
    StripeRequest.Rotate request = new StripeRequest.Rotate();
    enqueue(request);
    return request;
  }

  private void enqueue(StripeRequest<?> request) {
    if (queue.push(request) && !gatherer.inWindow()) {
      LockSupport.unpark(writer);
    }
  }

  /** True once a preallocated spare waits for the next segment (tests wait for it). */
  boolean spareReady() {
    return segments.spareReady();
  }

  /** The id the next new segment will get; no segment at or above it exists yet. */
  long nextSegmentId() {
    return segments.nextSegmentId();
  }

  long totalSizeBytes() {
    return segments.totalSizeBytes();
  }

  /**
   * Deletes every segment with an id below {@code checkpointId} except the current one, then syncs
   * the directory (see {@link StripeSegments#discardBefore}).
   */
  void discardBefore(long checkpointId) throws IOException {
    segments.discardBefore(checkpointId);
  }

  /**
   * Stops the writer after it has written and synced (or failed) every queued request, and closes
   * the current segment. Later requests fail at once.
   */
  void shutdown() {
    shutdownRequested = true;
    LockSupport.unpark(writer);
    boolean interrupted = false;
    while (writer.isAlive()) {
      try {
        writer.join();
      } catch (InterruptedException e) {
        interrupted = true; // the writer must finish: futures depend on it
      }
    }
    segments.closePreallocator();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    meters.remove();
  }

  // ---------------------------------------------------------------- writer thread

  private void runWriter() {
    try {
      while (true) {
        StripeRequest<?> chain = queue.drain();
        if (chain != null) {
          try {
            gatherer.gatherDuringWindow(chain);
          } catch (Throwable t) {
            // Drained requests are no longer in the queue: fail them here, or they would wait
            // forever when the catch below closes the queue.
            failAll(chain, new IOException("commit-log stripe " + index + " writer failed", t));
            throw t;
          }
          process(chain);
        } else if (shutdownRequested) {
          process(queue.close(new IOException("commit log is closed")));
          break;
        } else {
          if (Thread.interrupted()) {
            // Nobody should interrupt the writer: a set flag would make park return at once
            // (a busy loop) and makes NIO close the segment's channel. Clear it and go on.
            LOG.log(Level.WARNING, "commit-log stripe " + index + " writer was interrupted");
          }
          LockSupport.park(this);
        }
      }
    } catch (Throwable t) {
      // A bug, or out of memory: fail everything rather than leave a caller waiting forever.
      LOG.log(Level.ERROR, "commit-log stripe " + index + " writer died", t);
      IOException cause = new IOException("commit-log stripe " + index + " writer died", t);
      failAll(queue.close(cause), cause);
    } finally {
      segments.closeCurrent();
    }
  }

  /** Writes a drained chain, oldest first, as few batches as the limits allow. */
  private void process(StripeRequest<?> chain) {
    segments.forgetCreationFailure();
    StripeRequest<?> remaining = chain;
    StripeRequest<?> request = null; // off the chain, maybe not yet in the batch
    try {
      while (remaining != null) {
        request = remaining;
        remaining = request.next;
        request.next = null;
        if (request instanceof StripeRequest.Append append) {
          add(append);
        } else {
          commitBatch(batchBuffer); // what was queued before the rotation goes below it
          ((StripeRequest.Rotate) request).complete(segments.rotateForCheckpoint());
        }
      }
      commitBatch(batchBuffer);
    } catch (Throwable t) {
      IOException cause = new IOException("commit-log stripe " + index + " writer failed", t);
      failBatch(cause);
      if (request != null) {
        request.completeExceptionally(cause); // no effect if it already completed
      }
      failAll(remaining, cause);
      throw t;
    }
  }

  private void add(StripeRequest.Append append) {
    if (append.isBarrier()) {
      link(append); // completes with the batch holding everything queued before it
      return;
    }
    int recordBytes = RecordFormat.recordBytes(append.payloadBytes);
    boolean alone = recordBytes > batchBuffer.capacity(); // written alone, from its own buffer
    if (batchRecords > 0
        && (alone || batchBuffer.position() + recordBytes > batchBuffer.capacity())) {
      commitBatch(batchBuffer);
    }
    if (segments.overflows((long) batchBuffer.position() + recordBytes)) {
      commitBatch(batchBuffer); // a record never spans segments
      segments.closeCurrent();
    } else if (segments.growsWhileSpareReady()) {
      // The first segment after a start, or one opened while no spare was ready, grows with its
      // writes; move to the spare between two batches instead of filling it.
      commitBatch(batchBuffer);
      segments.closeCurrent();
    }
    if (!segments.isOpen() && !segments.tryOpen()) {
      append.release();
      append.completeExceptionally(segments.creationFailure());
      return;
    }
    segments.markHasRecords();
    ByteBuffer target = alone ? ByteBuffer.allocate(recordBytes) : batchBuffer;
    RecordFormat.encode(append.cell(), append.payloadBytes, target, crc);
    link(append);
    batchRecords++;
    if (alone) {
      commitBatch(target);
    }
  }

  private void link(StripeRequest.Append append) {
    if (batchHead == null) {
      batchHead = append;
    } else {
      batchTail.next = append;
    }
    batchTail = append;
  }

  /**
   * Writes {@code buffer} (the encoded batch), syncs, then completes the batch. An unchecked
   * exception leaves the batch linked, for {@link #process} to fail it.
   */
  private void commitBatch(ByteBuffer buffer) {
    if (batchHead == null) {
      return;
    }
    if (buffer.position() > 0) {
      try {
        writeAndSync(buffer);
      } catch (IOException e) {
        meters.failedBatches.increment();
        IOException failure =
            new IOException(
                "commit-log write failed on stripe "
                    + index
                    + " ("
                    + segments.currentPath()
                    + "): "
                    + e.getMessage()
                    + "; these "
                    + batchRecords
                    + " records may or may not be durable",
                e);
        LOG.log(Level.ERROR, failure.getMessage() + "; abandoning the segment");
        failBatch(failure);
        segments.closeCurrent(); // the next batch goes to a fresh segment, past any partial write
        resetBatch(buffer);
        return;
      }
    }
    completeBatch();
    resetBatch(buffer);
  }

  private void resetBatch(ByteBuffer buffer) {
    buffer.clear();
    batchHead = null;
    batchTail = null;
    batchRecords = 0;
  }

  private void writeAndSync(ByteBuffer buffer) throws IOException {
    buffer.flip();
    segments.write(buffer);
    long start = System.nanoTime();
    segments.sync();
    long took = System.nanoTime() - start;
    meters.syncLatency.record(took, TimeUnit.NANOSECONDS);
    gatherer.synced(took);
    meters.batchRecords.record(batchRecords);
  }

  private void completeBatch() {
    StripeRequest.Append a = batchHead;
    while (a != null) {
      StripeRequest.Append next = (StripeRequest.Append) a.next;
      a.release();
      a.complete(null);
      a = next;
    }
  }

  private void failBatch(IOException failure) {
    StripeRequest.Append a = batchHead;
    while (a != null) {
      StripeRequest.Append next = (StripeRequest.Append) a.next;
      a.release();
      a.completeExceptionally(failure);
      a = next;
    }
    batchHead = null;
    batchTail = null;
  }

  private static void failAll(StripeRequest<?> chain, IOException cause) {
    while (chain != null) {
      StripeRequest<?> next = chain.next;
      chain.next = null;
      chain.completeExceptionally(cause);
      chain = next;
    }
  }
}
