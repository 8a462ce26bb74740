package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The segments of one commit-log stripe: the live ones (kept from replay, or written since) and the
 * current one the writer appends to; rolling to a new segment (a fresh file, or a preallocated
 * spare adopted), closing the current one at a rotation, and deleting those a flush made obsolete.
 *
 * <p>Thread-safety: {@link #discardBefore}, {@link #totalSizeBytes}, {@link #nextSegmentId} and
 * {@link #spareReady} are safe from any thread; every other method belongs to the stripe's writer
 * thread (before the writer starts, to the opening thread).
 */
final class StripeSegments {
  // The stripe's logger: operators configure the commit log's log by that name.
  private static final System.Logger LOG = System.getLogger(CommitLogStripe.class.getName());

  private final int index;
  private final Path directory;
  private final FileSystem fs;
  private final long segmentSizeBytes;
  private final SegmentPreallocator preallocator; // null when segments grow as written
  private final StripeMeters meters;

  // Live segments by id, the current one included. Guarded by itself; changed only when a segment
  // is created or discarded, never per record.
  private final TreeMap<Long, CommitLogSegment> segments = new TreeMap<>();
  private final AtomicLong liveBytes = new AtomicLong();
  private volatile long currentSegmentId = -1;

  // Writer thread.
  private volatile long nextSegmentId; // written by the writer only; read by discardBefore
  private CommitLogSegment current;
  private WritableFile currentFile;
  private boolean currentHasRecords;
  private boolean currentGrows; // not preallocated: left for the spare as soon as one is ready
  private IOException segmentCreationFailure; // for the rest of one drained chain only

  /**
   * @param existing the segments replay kept in {@code directory}
   * @param highestExistingId new segments get higher ids than this
   */
  StripeSegments(
      int index,
      Path directory,
      FileSystem fs,
      CommitLogConfig config,
      List<CommitLogSegment> existing,
      long highestExistingId,
      StripeMeters meters) {
    this.index = index;
    this.directory = directory;
    this.fs = fs;
    this.segmentSizeBytes = config.segmentSizeBytes();
    this.meters = meters;
    this.preallocator =
        config.preallocateSegments()
            ? new SegmentPreallocator(fs, directory, segmentSizeBytes, index)
            : null;
    for (CommitLogSegment s : existing) {
      assert s.id() <= highestExistingId;
      segments.put(s.id(), s);
      liveBytes.addAndGet(s.sizeBytes());
    }
    this.nextSegmentId = highestExistingId + 1;
  }

  /** Opens the first segment, so that an unwritable directory fails the open. */
  void openFirst() throws IOException {
    // A spare is deleted even with preallocation off: one left by an earlier run is 64 MiB of
    // nothing. The first segment grows as written; the spare prepared now serves the next one.
    SegmentPreallocator.deleteSpares(fs, directory);
    openSegment();
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

  /** Stops preparing spares (after the writer ended). */
  void closePreallocator() {
    if (preallocator != null) {
      preallocator.close();
    }
  }

  // ---------------------------------------------------------------- writer thread

  /** Whether a segment is open for appends. */
  boolean isOpen() {
    return current != null;
  }

  /** Whether {@code moreBytes} would carry the current segment, which holds records, past size. */
  boolean overflows(long moreBytes) {
    return currentHasRecords && current.sizeBytes() + moreBytes > segmentSizeBytes;
  }

  /**
   * Whether the current segment grows with its writes (the first after a start, or one opened while
   * no spare was ready) and a spare is ready to take over between two batches.
   */
  boolean growsWhileSpareReady() {
    return current != null && currentGrows && spareReady();
  }

  /** The current segment now holds (or is about to hold) a record. */
  void markHasRecords() {
    currentHasRecords = true;
  }

  /** The current segment's file, for error messages. */
  Path currentPath() {
    return current.path();
  }

  /**
   * Appends {@code buffer} (flipped) to the current segment. What reached the file counts in the
   * segment's size even when the write fails: replay reads it as a torn tail.
   */
  void write(ByteBuffer buffer) throws IOException {
    long before = currentFile.position();
    try {
      currentFile.write(buffer);
    } finally {
      long written = currentFile.position() - before;
      current.sizeBytes(current.sizeBytes() + written);
      liveBytes.addAndGet(written);
      meters.bytesWritten.increment(written);
    }
  }

  /** Syncs the current segment's file. */
  void sync() throws IOException {
    currentFile.sync();
  }

  /** A new drained chain begins: a segment-creation failure of the last one is forgotten. */
  void forgetCreationFailure() {
    segmentCreationFailure = null;
  }

  /** Why the segment could not be opened during this chain (after {@link #tryOpen} failed). */
  IOException creationFailure() {
    return segmentCreationFailure;
  }

  /**
   * Closes the current segment if it holds records. Returns the id at or above which segments may
   * hold records queued after the rotation: the next segment, or the current one if still empty.
   */
  long rotateForCheckpoint() {
    if (current != null && !currentHasRecords) {
      return current.id();
    }
    closeCurrent();
    return nextSegmentId; // the next segment, opened lazily by the next append
  }

  /** Opens the next segment; false (the cause in {@link #creationFailure}) if it cannot. */
  boolean tryOpen() {
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

  /** Closes the current segment (if any); the next append opens a new one. */
  void closeCurrent() {
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
