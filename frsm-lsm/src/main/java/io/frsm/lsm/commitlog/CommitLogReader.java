package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.cell.MalformedCellException;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.ReadableFile;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Replays commit-log segments: reads each in large chunks (not one call per record) and hands every
 * intact record's cell to the caller.
 *
 * <p><b>Torn tail or corruption.</b> When a record fails (length out of bounds or past the end of
 * the file, checksum mismatch), the reader searches the rest of the segment for any intact record
 * (a plausible length and a matching checksum, at any byte offset, since a damaged length hides
 * where the next record starts):
 *
 * <ul>
 *   <li>none: the bad bytes are a write cut short by a crash (a truncated record, zeros, garbage),
 *       which no acknowledged record can follow, because a record is acknowledged only after its
 *       sync and a sync covers everything written before it. Replay keeps everything before it and
 *       logs a WARNING with file and offset.
 *   <li>one: bytes inside the durable part of the segment were damaged. Skipping them would
 *       silently drop acknowledged records, so replay fails with a {@link CorruptionException}, or
 *       with {@link CommitLogConfig#skipCorruptSegmentTail()} logs an ERROR and skips the rest of
 *       the segment.
 * </ul>
 *
 * The rule is local to a segment on purpose: a torn segment is not always its stripe's last one (a
 * restart opens new segments above it; a failed write abandons the segment it damaged).
 *
 * <p>A segment whose rest is all zeros from the failing record on ends there cleanly (DEBUG, no
 * search): that is the unwritten part of a preallocated segment ({@link SegmentPreallocator}).
 *
 * <p>A record with a valid checksum whose payload does not decode as a cell was written that way (a
 * bug or a foreign file), never torn: it is always corruption.
 *
 * <p>Not thread-safe: one reader per replaying thread; it reuses its buffer across segments.
 */
final class CommitLogReader {
  private static final System.Logger LOG = System.getLogger(CommitLogReader.class.getName());

  /** Big reads keep replay at disk speed; 1 MiB amortizes the call and fits any cache. */
  static final int CHUNK_BYTES = 1 << 20;

  private final FileSystem fs;
  private final boolean skipCorruptSegmentTail;
  private final java.util.function.Consumer<CorruptionException> damagedSegmentTail;
  private final CRC32C crc = new CRC32C();

  private byte[] window = new byte[CHUNK_BYTES];
  private ByteBuffer windowBuffer = ByteBuffer.wrap(window);

  // The segment being replayed, and the file range [windowStart, windowEnd) held by the window.
  private Path path;
  private ReadableFile file;
  private long fileSize;
  private long windowStart;
  private long windowEnd;

  CommitLogReader(FileSystem fs, boolean skipCorruptSegmentTail) {
    this(fs, skipCorruptSegmentTail, null);
  }

  CommitLogReader(
      FileSystem fs,
      boolean skipCorruptSegmentTail,
      java.util.function.Consumer<CorruptionException> damagedSegmentTail) {
    this.fs = fs;
    this.skipCorruptSegmentTail = skipCorruptSegmentTail;
    this.damagedSegmentTail = damagedSegmentTail;
  }

  /** What replaying one segment found. */
  record Result(SegmentHeader header, long sizeBytes, long records) {}

  /**
   * Replays the segment at {@code segmentPath}. A file shorter than a header is what a crash right
   * after creating a segment leaves: it is deleted (WARNING) and null returned.
   *
   * @param expectedId the id in the file name, which the header must repeat
   * @throws CorruptionException for a bad header or damage that acknowledged records may follow
   */
  Result replay(Path segmentPath, long expectedId, Consumer<Cell> replayed) throws IOException {
    this.path = segmentPath;
    try (ReadableFile f = fs.openRead(segmentPath)) {
      this.file = f;
      this.fileSize = f.size();
      this.windowStart = 0;
      this.windowEnd = 0;
      if (fileSize < SegmentHeader.BYTES) {
        return null;
      }
      load(0, SegmentHeader.BYTES);
      SegmentHeader header =
          SegmentHeader.decode(ByteBuffer.wrap(window, 0, SegmentHeader.BYTES), segmentPath);
      if (header.segmentId() != expectedId) {
        throw new CorruptionException(
            segmentPath,
            0,
            "segment header names id " + header.segmentId() + " but the file name " + expectedId);
      }
      long records = replayRecords(replayed);
      return new Result(header, fileSize, records);
    } finally {
      this.file = null;
      this.path = null;
    }
  }

  private long replayRecords(Consumer<Cell> replayed) throws IOException {
    long records = 0;
    long offset = SegmentHeader.BYTES;
    while (offset < fileSize) {
      if (fileSize - offset < RecordFormat.HEADER_BYTES) {
        badRecord(offset, -1, "record header cut short by the end of the file");
        break;
      }
      int at = load(offset, RecordFormat.HEADER_BYTES);
      int length = windowBuffer.getInt(at);
      if (!RecordFormat.isPlausiblePayloadLength(length)) {
        badRecord(offset, -1, "implausible record length " + Integer.toUnsignedString(length));
        break;
      }
      if (offset + RecordFormat.recordBytes(length) > fileSize) {
        badRecord(offset, length, "record of " + length + " bytes runs past the end of the file");
        break;
      }
      at = load(offset, RecordFormat.recordBytes(length));
      if (windowBuffer.getInt(at + 4) != RecordFormat.checksum(window, at, length, crc)) {
        badRecord(offset, length, "record checksum mismatch");
        break;
      }
      Cell cell = decode(at, length, offset);
      if (cell == null) {
        break;
      }
      replayed.accept(cell);
      records++;
      offset += RecordFormat.recordBytes(length);
    }
    return records;
  }

  /** The cell of a checksummed payload, or null if it is malformed and skipping is allowed. */
  private Cell decode(int at, int length, long offset) throws CorruptionException {
    ByteBuffer payload =
        ByteBuffer.wrap(window, at + RecordFormat.HEADER_BYTES, length).slice(); // bounds decode
    try {
      Cell cell = CellCodec.decode(payload);
      if (payload.hasRemaining()) {
        throw new MalformedCellException(payload.remaining() + " bytes after the cell");
      }
      return cell;
    } catch (MalformedCellException e) {
      corrupt(offset, "record with a valid checksum is not a cell: " + e.getMessage());
      return null;
    }
  }

  /**
   * A record at {@code offset} failed. Decides torn tail (log, stop) or corruption (throw, or log
   * and stop when skipping is configured). {@code length} is its length field if plausible, else
   * -1.
   */
  private void badRecord(long offset, int length, String what) throws IOException {
    if (zerosFrom(offset)) {
      // The unwritten rest of a preallocated segment (or a torn write that left only zeros): the
      // segment's clean end. No record can hide in zeros (a length of 0 is never valid).
      LOG.log(
          Level.DEBUG,
          "Commit-log segment {0} ends at offset {1}, followed by {2} bytes of zeros",
          path,
          offset,
          fileSize - offset);
      return;
    }
    long intact = findIntactRecordAfter(offset, length);
    if (intact < 0) {
      LOG.log(
          Level.WARNING,
          "Commit-log segment {0} ends in a torn write at offset {1} ({2}); ignoring its last {3}"
              + " bytes, which hold no acknowledged record",
          path,
          offset,
          what,
          fileSize - offset);
      return;
    }
    corrupt(offset, what + "; an intact record follows at offset " + intact);
  }

  private void corrupt(long offset, String what) throws CorruptionException {
    CorruptionException e =
        new CorruptionException(path, offset, "commit-log " + what + " (acknowledged writes)");
    if (damagedSegmentTail != null) {
      LOG.log(
          Level.ERROR,
          "Skipping the rest of a damaged commit-log segment ({0} bytes); the replica is fenced"
              + " until repaired: {1}",
          fileSize - offset,
          e.getMessage());
      damagedSegmentTail.accept(e);
      return;
    }
    if (!skipCorruptSegmentTail) {
      throw e;
    }
    LOG.log(
        Level.ERROR,
        "Skipping the rest of a damaged commit-log segment ({0} bytes) because"
            + " skipCorruptSegmentTail is set: {1}",
        fileSize - offset,
        e.getMessage());
  }

  /**
   * The offset of the first intact record after the bad one at {@code badOffset}, or -1. Tries the
   * offset the bad record's own length points to first (a damaged payload leaves the framing
   * intact), then every byte offset (a damaged length does not).
   */
  private long findIntactRecordAfter(long badOffset, int length) throws IOException {
    if (length > 0) {
      long next = badOffset + RecordFormat.recordBytes(length);
      if (isIntactRecordAt(next)) {
        return next;
      }
    }
    for (long candidate = badOffset + 1;
        candidate + RecordFormat.HEADER_BYTES < fileSize;
        candidate++) {
      if (isIntactRecordAt(candidate)) {
        return candidate;
      }
    }
    return -1;
  }

  /** True if every byte of the segment from {@code offset} to its end is zero. */
  private boolean zerosFrom(long offset) throws IOException {
    long at = offset;
    while (at < fileSize) {
      int bytes = (int) Math.min(CHUNK_BYTES, fileSize - at);
      int from = load(at, bytes);
      for (int i = from; i < from + bytes; i++) {
        if (window[i] != 0) {
          return false;
        }
      }
      at += bytes;
    }
    return true;
  }

  private boolean isIntactRecordAt(long offset) throws IOException {
    if (offset + RecordFormat.HEADER_BYTES >= fileSize) {
      return false;
    }
    int at = load(offset, RecordFormat.HEADER_BYTES);
    int length = windowBuffer.getInt(at);
    if (!RecordFormat.isPlausiblePayloadLength(length)
        || offset + RecordFormat.recordBytes(length) > fileSize) {
      return false;
    }
    at = load(offset, RecordFormat.recordBytes(length));
    return windowBuffer.getInt(at + 4) == RecordFormat.checksum(window, at, length, crc);
  }

  /**
   * Makes the window hold file bytes {@code [offset, offset + bytes)} and returns the index of
   * {@code offset} in it. Reads a whole chunk (or what is left of the file) when it must read.
   * REQUIRES: {@code offset + bytes <= fileSize} and {@code bytes <= RecordFormat.recordBytes(
   * MAX_PAYLOAD_BYTES)}.
   */
  private int load(long offset, int bytes) throws IOException {
    assert offset + bytes <= fileSize : "read past the end of the file";
    if (offset >= windowStart && offset + bytes <= windowEnd) {
      return (int) (offset - windowStart);
    }
    if (bytes > window.length) {
      window = new byte[bytes]; // one record larger than a chunk: grow once, keep for later
      windowBuffer = ByteBuffer.wrap(window);
    }
    int length = (int) Math.min(window.length, fileSize - offset);
    ByteBuffer dst = ByteBuffer.wrap(window, 0, length);
    file.readFully(dst, offset);
    windowStart = offset;
    windowEnd = offset + length;
    return 0;
  }
}
