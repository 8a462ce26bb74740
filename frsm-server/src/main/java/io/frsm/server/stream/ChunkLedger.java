package io.frsm.server.stream;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The receiver's account of one snapshot's files: which chunks to ask for next, which are asked and
 * unanswered, and how much of each file is verified. A chunk is verified when its length is the one
 * asked (cut at the file's end) and its CRC32C matches both the one it carries and its bytes; a
 * chunk that fails is asked again, at most {@code maxRetriesPerChunk} times. Each file's verified
 * prefix grows only over contiguous verified chunks, so it is a resume point: bytes below it were
 * checked (durable once the caller fsynced them). Not thread-safe: one session's thread.
 *
 * <p>Invariant: the source answers requests in the order asked, so every chunk must answer the
 * oldest outstanding request; anything else is a protocol violation.
 */
final class ChunkLedger {
  record Request(int file, long offset, int length) {}

  enum Verdict {
    /** Verified: write it at its offset, then call {@link #written}. */
    WRITE,
    /** Damaged (checksum or length): asked again. */
    RESEND
  }

  private final List<ManifestFile> files;
  private final int chunkBytes;
  private final int maxRetriesPerChunk;
  private final long[] verified;

  /** Per file: verified chunks beyond the prefix, offset to end. */
  private final List<TreeMap<Long, Long>> ahead;

  /** Per file: the next offset never asked for. */
  private final long[] nextOffset;

  private final ArrayDeque<Request> resend = new ArrayDeque<>();
  private final ArrayDeque<Request> outstanding = new ArrayDeque<>();
  private final Map<Request, Integer> retries = new HashMap<>();
  private int cursor;
  private long chunkRetries;

  /**
   * @param verifiedOffsets per file, bytes already verified and durable (0 for a new copy)
   */
  ChunkLedger(
      List<ManifestFile> files, long[] verifiedOffsets, int chunkBytes, int maxRetriesPerChunk) {
    if (verifiedOffsets.length != files.size()) {
      throw new IllegalArgumentException("one verified offset per file");
    }
    if (chunkBytes < 1 || maxRetriesPerChunk < 0) {
      throw new IllegalArgumentException("chunkBytes >= 1 and maxRetriesPerChunk >= 0");
    }
    this.files = List.copyOf(files);
    this.chunkBytes = chunkBytes;
    this.maxRetriesPerChunk = maxRetriesPerChunk;
    this.verified = verifiedOffsets.clone();
    this.nextOffset = verifiedOffsets.clone();
    this.ahead = new java.util.ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      if (verified[i] < 0 || verified[i] > files.get(i).length()) {
        throw new IllegalArgumentException(
            "verified offset " + verified[i] + " outside file " + files.get(i));
      }
      ahead.add(new TreeMap<>());
    }
  }

  /** The next chunk to ask for (and now outstanding), or null if every chunk was asked. */
  Request next() {
    Request r = resend.pollFirst();
    if (r == null) {
      while (cursor < files.size() && nextOffset[cursor] >= files.get(cursor).length()) {
        cursor++;
      }
      if (cursor == files.size()) {
        return null;
      }
      long offset = nextOffset[cursor];
      int length = (int) Math.min(chunkBytes, files.get(cursor).length() - offset);
      nextOffset[cursor] = offset + length;
      r = new Request(cursor, offset, length);
    }
    outstanding.addLast(r);
    return r;
  }

  int outstanding() {
    return outstanding.size();
  }

  /**
   * Checks a received chunk against the oldest outstanding request.
   *
   * @param actualCrc32c the checksum the receiver computed over the bytes it got
   * @throws ProtocolViolation if the chunk answers no outstanding request in order
   * @throws StreamException if a chunk failed verification more than the retry limit
   */
  Verdict accept(int file, long offset, int dataLength, int claimedCrc32c, int actualCrc32c) {
    Request head = outstanding.peekFirst();
    if (head == null || head.file() != file || head.offset() != offset) {
      throw new ProtocolViolation(
          "chunk of file "
              + file
              + " at offset "
              + offset
              + " answers no request in order (expected "
              + (head == null ? "none" : "file " + head.file() + " at " + head.offset())
              + ")");
    }
    outstanding.pollFirst();
    if (dataLength == head.length() && claimedCrc32c == actualCrc32c) {
      retries.remove(head);
      return Verdict.WRITE;
    }
    int failures = retries.merge(head, 1, Integer::sum);
    chunkRetries++;
    if (failures > maxRetriesPerChunk) {
      throw new StreamException(
          "chunk of "
              + files.get(file).name()
              + " at offset "
              + offset
              + " failed verification "
              + failures
              + " times ("
              + (dataLength == head.length()
                  ? "checksum mismatch"
                  : dataLength + " bytes where " + head.length() + " were asked")
              + ")");
    }
    resend.addLast(head);
    return Verdict.RESEND;
  }

  /** The chunk {@link #accept} verified is written: the file's verified prefix may grow. */
  void written(int file, long offset, int length) {
    TreeMap<Long, Long> beyond = ahead.get(file);
    beyond.put(offset, offset + length);
    Long end;
    while ((end = beyond.remove(verified[file])) != null) {
      verified[file] = end;
    }
  }

  boolean fileComplete(int file) {
    return verified[file] == files.get(file).length();
  }

  boolean complete() {
    for (int i = 0; i < files.size(); i++) {
      if (!fileComplete(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The whole file failed its checksum after every chunk verified: fetch it again from the start.
   * REQUIRES: no request of the file is outstanding (it is complete).
   */
  void restartFile(int file) {
    verified[file] = 0;
    nextOffset[file] = 0;
    ahead.get(file).clear();
    cursor = Math.min(cursor, file);
  }

  long[] verifiedOffsets() {
    return verified.clone();
  }

  /** Chunks asked again so far. */
  long chunkRetries() {
    return chunkRetries;
  }

  List<ManifestFile> files() {
    return files;
  }
}
