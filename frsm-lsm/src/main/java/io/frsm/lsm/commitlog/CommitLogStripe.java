package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
  private final Path directory;
  private final FileSystem fs;
  private final long segmentSizeBytes;
  private final StripeQueue queue = new StripeQueue();
  private final Thread writer;
  private volatile boolean shutdownRequested;
  private final GroupCommitGatherer gatherer;
  private final SegmentPreallocator preallocator; // null when segments grow as written

  // Live segments by id, the current one included. Guarded by itself; changed only when a segment
  // is created or discarded, never per record.
  private final TreeMap<Long, CommitLogSegment> segments = new TreeMap<>();
  private final AtomicLong liveBytes = new AtomicLong();
  private volatile long currentSegmentId = -1;

  // Writer thread.
  private final ByteBuffer batchBuffer;
  private final CRC32C crc = new CRC32C();
  private volatile long nextSegmentId; // written by the writer only; read by discardBefore
  private CommitLogSegment current;
  private WritableFile currentFile;
  private boolean currentHasRecords;
  private boolean currentGrows; // not preallocated: left for the spare as soon as one is ready
  private IOException segmentCreationFailure; // for the rest of one drained chain only
  private StripeRequest.Append batchHead;
  private StripeRequest.Append batchTail;
  private int batchRecords;

  private final StripeMeters meters;

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
    this.directory = directory;
    this.fs = fs;
    this.segmentSizeBytes = config.segmentSizeBytes();
    this.preallocator =
        config.preallocateSegments()
            ? new SegmentPreallocator(fs, directory, segmentSizeBytes, index)
            : null;
    this.batchBuffer = ByteBuffer.allocateDirect(config.maxBatchBytes());
    for (CommitLogSegment s : existing) {
      assert s.id() <= highestExistingId;
      segments.put(s.id(), s);
      liveBytes.addAndGet(s.sizeBytes());
    }
    this.nextSegmentId = highestExistingId + 1;
    this.meters = new StripeMeters(registry, this);
    this.gatherer =
        new GroupCommitGatherer(
            config.groupCommitWindow(), windowWait, queue, () -> shutdownRequested, meters);
    this.writer = new Thread(this::runWriter, "frsm-commitlog-stripe-" + index);
    this.writer.setDaemon(true);
  }

  /** Opens the first segment (so that an unwritable directory fails the open) and starts. */
  void start() throws IOException {
    // A spare is deleted even with preallocation off: one left by an earlier run is 64 MiB of
    // nothing. The first segment grows as written; the spare prepared now serves the next one.
    SegmentPreallocator.deleteSpares(fs, directory);
    openSegment();
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
    return preallocator != null && preallocator.spareReady();
  }

  /** The id the next new segment will get; no segment at or above it exists yet. */
  long nextSegmentId() {
    return nextSegmentId;
  }

  long totalSizeBytes() {
    return liveBytes.get();
  }

  /**
   * Deletes every segment with an id below {@code checkpointId} except the current one, then syncs
   * the directory. Synchronized so that concurrent discards do not delete or count a segment twice.
   */
  synchronized void discardBefore(long checkpointId) throws IOException {
    List<CommitLogSegment> doomed = new ArrayList<>();
    synchronized (segments) {
      for (CommitLogSegment s : segments.headMap(checkpointId).values()) {
        if (s.id() != currentSegmentId) {
          doomed.add(s);
        }
      }
    }
    if (doomed.isEmpty()) {
      return;
    }
    for (CommitLogSegment s : doomed) {
      fs.delete(s.path());
      synchronized (segments) {
        segments.remove(s.id());
      }
      liveBytes.addAndGet(-s.sizeBytes());
    }
    fs.syncDirectory(directory);
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
    if (preallocator != null) {
      preallocator.close();
    }
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
      closeCurrent();
    }
  }

  /** Writes a drained chain, oldest first, as few batches as the limits allow. */
  private void process(StripeRequest<?> chain) {
    segmentCreationFailure = null;
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
          ((StripeRequest.Rotate) request).complete(rotateForCheckpoint());
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
    if (currentHasRecords
        && current.sizeBytes() + batchBuffer.position() + recordBytes > segmentSizeBytes) {
      commitBatch(batchBuffer); // a record never spans segments
      closeCurrent();
    } else if (current != null && currentGrows && spareReady()) {
      // The first segment after a start, or one opened while no spare was ready, grows with its
      // writes; move to the spare between two batches instead of filling it.
      commitBatch(batchBuffer);
      closeCurrent();
    }
    if (current == null && !tryOpenSegment()) {
      append.release();
      append.completeExceptionally(segmentCreationFailure);
      return;
    }
    currentHasRecords = true;
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
                    + current.path()
                    + "): "
                    + e.getMessage()
                    + "; these "
                    + batchRecords
                    + " records may or may not be durable",
                e);
        LOG.log(Level.ERROR, failure.getMessage() + "; abandoning the segment");
        failBatch(failure);
        closeCurrent(); // the next batch goes to a fresh segment, past any partial write
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
    long before = currentFile.position();
    try {
      currentFile.write(buffer);
    } finally {
      long written = currentFile.position() - before;
      current.sizeBytes(current.sizeBytes() + written);
      liveBytes.addAndGet(written);
      meters.bytesWritten.increment(written);
    }
    long start = System.nanoTime();
    currentFile.sync();
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

  /**
   * Closes the current segment if it holds records. Returns the id at or above which segments may
   * hold records queued after the rotation: the next segment, or the current one if still empty.
   */
  private long rotateForCheckpoint() {
    if (current != null && !currentHasRecords) {
      return current.id();
    }
    closeCurrent();
    return nextSegmentId; // the next segment, opened lazily by the next append
  }

  private boolean tryOpenSegment() {
    if (segmentCreationFailure != null) {
      return false; // already failed during this drain: do not hammer a full disk per record
    }
    try {
      openSegment();
      return true;
    } catch (IOException e) {
      meters.failedBatches.increment();
      segmentCreationFailure =
          new IOException(
              "commit-log write failed on stripe "
                  + index
                  + ": cannot start a new segment in "
                  + directory
                  + ": "
                  + e.getMessage(),
              e);
      LOG.log(Level.ERROR, segmentCreationFailure.getMessage());
      return false;
    }
  }

  /**
   * Creates the next segment: header written and synced, directory entry synced. With
   * preallocation, a spare that is ready becomes the segment instead of a new file (see {@link
   * #adoptSpare}), and the next spare is asked for.
   */
  private void openSegment() throws IOException {
    assert current == null : "a segment is already open";
    long id = nextSegmentId++;
    Path path = directory.resolve(CommitLogSegment.fileName(id));
    CommitLogSegment segment = new CommitLogSegment(id, path, 0);
    synchronized (segments) {
      segments.put(id, segment);
    }
    WritableFile file = null;
    boolean adopted = false;
    try {
      file = adoptSpare(id, path);
      adopted = file != null;
      if (file == null) {
        file = fs.create(path);
        writeHeader(file, id);
        file.sync();
      }
      segment.sizeBytes(file.position());
      liveBytes.addAndGet(file.position());
      fs.syncDirectory(directory);
    } catch (IOException e) {
      if (file != null) {
        closeQuietly(file);
      }
      // Best effort: a leftover short file is deleted by the next replay anyway.
      try {
        fs.delete(path);
        synchronized (segments) {
          segments.remove(id);
        }
        liveBytes.addAndGet(-segment.sizeBytes());
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      if (preallocator != null) {
        preallocator.prepare();
      }
    }
    current = segment;
    currentFile = file;
    currentHasRecords = false;
    currentGrows = !adopted;
    currentSegmentId = id;
  }

  private void writeHeader(WritableFile file, long id) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(SegmentHeader.BYTES);
    new SegmentHeader(index, id).encode(header);
    header.flip();
    file.write(header);
  }

  /**
   * The prepared spare as segment {@code id}, or null if none is ready or it cannot be used. The
   * header goes into the spare and is synced <em>before</em> the rename: the rename may reach the
   * disk before a later overwrite does, and a segment name on a file of zeros would read as a bad
   * header (corruption) at replay. A crash before the rename is durable leaves the spare, which the
   * next start deletes; no record was written to it (the caller syncs the directory first).
   */
  private WritableFile adoptSpare(long id, Path path) {
    if (preallocator == null) {
      return null;
    }
    SegmentPreallocator.Spare spare = preallocator.takeReady();
    if (spare == null) {
      return null;
    }
    try {
      writeHeader(spare.file(), id);
      spare.file().sync();
      fs.rename(spare.path(), path);
      return spare.file();
    } catch (IOException e) {
      LOG.log(
          Level.WARNING,
          "could not use the preallocated commit-log segment of stripe "
              + index
              + ": "
              + e
              + "; creating one that grows as written");
      preallocator.discard(spare);
      return null;
    }
  }

  private void closeCurrent() {
    if (current == null) {
      return;
    }
    closeQuietly(currentFile);
    current = null;
    currentFile = null;
    currentHasRecords = false;
    currentSegmentId = -1;
  }

  private void closeQuietly(WritableFile file) {
    try {
      file.close(); // everything in it was synced or its failure reported: nothing to lose here
    } catch (IOException e) {
      LOG.log(Level.WARNING, "closing a commit-log segment of stripe " + index + " failed", e);
    }
  }
}
