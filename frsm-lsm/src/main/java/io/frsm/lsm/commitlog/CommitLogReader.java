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
 * the file, checksum mismatch), the reader decides whether a write cut short by a crash explains
 * the bytes from there to the end of the segment. A record is acknowledged only after its sync, and
 * a sync covers everything written before it, so a cut-short write is always the segment's last
 * write, and what it leaves is one of:
 *
 * <ul>
 *   <li>a file that ends inside the record (the write, or the file's growth, stopped there): the
 *       record's header is cut short or its length runs past the end of the file;
 *   <li>in a preallocated segment, the record's first part followed by zeros to the end of the
 *       file, the zeros starting at or before a 512-byte boundary inside the record: a device
 *       writes whole sectors and the kernel copies a write page by page, so a cut falls on a sector
 *       boundary.
 * </ul>
 *
 * Anything else is damage to bytes that were written: an intact record after the bad one (a
 * plausible length and a matching checksum, at any byte offset, since a damaged length hides where
 * the next record starts); a record present in full whose checksum fails (a flipped byte, even in
 * the segment's last record); non-zero bytes after the bad record that a cut cannot leave; or a
 * length that runs into the zeros (or past the end) while a shorter length makes the checksum match
 * (a flipped length). Skipping damage would silently drop acknowledged records — promises and
 * accepts a Paxos acceptor must not forget — so replay fails with a {@link CorruptionException}, or
 * with {@link CommitLogConfig#skipCorruptSegmentTail()} logs an ERROR and skips the rest of the
 * segment. A cut-short write is logged as a WARNING with file and offset, and replay keeps
 * everything before it.
 *
 * <p>The price of the strict rule: stray non-zero bytes in a preallocated segment's unused tail are
 * damage too (the replica is fenced and repaired, though nothing was lost), and a cut that falls
 * off a sector boundary is called damage. Both err towards repair, never towards forgetting.
 *
 * <p>The rule is local to a segment on purpose: a torn segment is not always its stripe's last one
 * (a restart opens new segments above it; a failed write abandons the segment it damaged).
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

  /** Where a cut-short write can stop in a preallocated segment (see the class comment). */
  static final int SECTOR_BYTES = 512;

  /** How many zero bytes a record's own payload may end in, for the damaged-length check. */
  private static final int NATURAL_ZERO_BYTES = 32;

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
    if (intact >= 0) {
      corrupt(offset, what + "; an intact record follows at offset " + intact);
      return;
    }
    String notACut = notACutShortWrite(offset, length);
    if (notACut != null) {
      corrupt(offset, what + "; " + notACut);
      return;
    }
    LOG.log(
        Level.WARNING,
        "Commit-log segment {0} ends in a torn write at offset {1} ({2}); ignoring its last {3}"
            + " bytes, which hold no acknowledged record",
        path,
        offset,
        what,
        fileSize - offset);
  }

  /**
   * Why the bytes from the bad record at {@code offset} to the end of the segment are not what a
   * write cut short leaves (see the class comment), or null if they are. {@code length} is the
   * record's length field if plausible, else -1.
   */
  private String notACutShortWrite(long offset, int length) throws IOException {
    long zeros = zeroTailStart(offset);
    if (length > 0 && shorterLengthMatches(offset, length, zeros)) {
      return "its length field is damaged (a shorter length matches its checksum)";
    }
    long claimedEnd =
        length > 0 ? offset + RecordFormat.recordBytes(length) : offset + RecordFormat.HEADER_BYTES;
    if (claimedEnd > fileSize) {
      return null; // the file ends inside the record: a write or the file's growth stopped there
    }
    if (zeros >= claimedEnd) {
      return length > 0
          ? "the record is there in full, so it was written whole and damaged since"
          : "bytes follow it up to offset " + zeros + " that no cut-short write leaves";
    }
    long cut = (zeros + SECTOR_BYTES - 1) / SECTOR_BYTES * SECTOR_BYTES;
    if (cut >= claimedEnd) {
      return "the zeros after it start at offset "
          + zeros
          + ", not at a sector boundary inside the record";
    }
    return null;
  }

  /**
   * The offset from which every byte of the segment to its end is zero ({@code fileSize} if its
   * last byte is not), searching from {@code from}.
   */
  private long zeroTailStart(long from) throws IOException {
    long start = from;
    long at = from;
    while (at < fileSize) {
      int bytes = (int) Math.min(CHUNK_BYTES, fileSize - at);
      int first = load(at, bytes);
      for (int i = first + bytes - 1; i >= first; i--) {
        if (window[i] != 0) {
          start = at + (i - first) + 1;
          break;
        }
      }
      at += bytes;
    }
    return start;
  }

  /**
   * Whether a payload length shorter than the record's field, ending where the written bytes end
   * (at {@code zeros} or up to {@link #NATURAL_ZERO_BYTES} later, since a cell may end in zero
   * bytes), makes the record's checksum match: then the field was damaged after a whole write.
   */
  private boolean shorterLengthMatches(long offset, int length, long zeros) throws IOException {
    long firstEnd = Math.max(zeros, offset + RecordFormat.HEADER_BYTES + 1);
    long lastEnd =
        Math.min(
            Math.min(zeros + NATURAL_ZERO_BYTES, fileSize),
            offset + RecordFormat.recordBytes(length) - 1);
    for (long end = firstEnd; end <= lastEnd; end++) {
      int candidate = (int) (end - offset - RecordFormat.HEADER_BYTES);
      if (!RecordFormat.isPlausiblePayloadLength(candidate)) {
        continue;
      }
      int at = load(offset, RecordFormat.recordBytes(candidate));
      if (windowBuffer.getInt(at + 4)
          == RecordFormat.checksumWithLength(window, at, candidate, crc)) {
        return true;
      }
    }
    return false;
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
