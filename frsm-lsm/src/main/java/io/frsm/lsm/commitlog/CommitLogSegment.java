package io.frsm.lsm.commitlog;

import java.nio.file.Path;

/**
 * One segment file of a stripe: its id, where it lives, and how many bytes it holds on disk. The
 * file name encodes the id, zero-padded so that name order is id order: {@code
 * commitlog-00000000000000000042.log}.
 *
 * <p>The size is written by the stripe's writer thread and read by anyone (size accounting).
 */
final class CommitLogSegment {
  /** DO NOT CHANGE: existing segments are found by this name pattern. */
  static final String FILE_PREFIX = "commitlog-";

  /** DO NOT CHANGE: existing segments are found by this name pattern. */
  static final String FILE_SUFFIX = ".log";

  private static final int ID_DIGITS = 20;

  private final long id;
  private final Path path;
  private volatile long sizeBytes;

  CommitLogSegment(long id, Path path, long sizeBytes) {
    this.id = id;
    this.path = path;
    this.sizeBytes = sizeBytes;
  }

  static String fileName(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("segment id must be >= 0: " + id);
    }
    return FILE_PREFIX + String.format("%0" + ID_DIGITS + "d", id) + FILE_SUFFIX;
  }

  /** The id named by a segment file, or -1 if {@code file} is not a segment. */
  static long parseId(Path file) {
    String name = file.getFileName().toString();
    if (!name.startsWith(FILE_PREFIX)
        || !name.endsWith(FILE_SUFFIX)
        || name.length() != FILE_PREFIX.length() + ID_DIGITS + FILE_SUFFIX.length()) {
      return -1;
    }
    String digits = name.substring(FILE_PREFIX.length(), FILE_PREFIX.length() + ID_DIGITS);
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return -1;
      }
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1; // more than Long.MAX_VALUE: not one of ours
    }
  }

  long id() {
    return id;
  }

  Path path() {
    return path;
  }

  long sizeBytes() {
    return sizeBytes;
  }

  void sizeBytes(long sizeBytes) {
    this.sizeBytes = sizeBytes;
  }

  @Override
  public String toString() {
    return path + " (" + sizeBytes + " bytes)";
  }
}
