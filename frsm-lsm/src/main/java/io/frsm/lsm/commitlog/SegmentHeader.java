package io.frsm.lsm.commitlog;

import io.frsm.lsm.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The fixed header at offset 0 of every commit-log segment (docs/formats/commitlog.md):
 *
 * <pre>
 *   u32 magic          0x4652434C ("FRCL")
 *   u32 formatVersion  1
 *   u32 stripeIndex    the stripe that wrote the segment
 *   u64 segmentId      equals the id in the file name
 *   u32 crc32c         CRC32C of the 20 bytes above
 * </pre>
 *
 * Big-endian. The stripe index is informational: replay is order-free, so a segment found in
 * another stripe's directory (directories reordered in the config) still replays correctly.
 */
record SegmentHeader(int stripeIndex, long segmentId) {
  /** DO NOT CHANGE: written to disk. */
  static final int MAGIC = 0x4652434C;

  /** DO NOT CHANGE: written to disk. A new record or header layout needs a new version. */
  static final int FORMAT_VERSION = 1;

  /** DO NOT CHANGE: written to disk. */
  static final int BYTES = 24;

  private static final int CHECKSUMMED_BYTES = BYTES - 4;

  SegmentHeader {
    if (stripeIndex < 0 || segmentId < 0) {
      throw new IllegalArgumentException(
          "stripe index and segment id must be >= 0: " + stripeIndex + ", " + segmentId);
    }
  }

  /** Writes the header at {@code out}'s position, advancing it by {@link #BYTES}. */
  void encode(ByteBuffer out) {
    int start = out.position();
    out.putInt(MAGIC);
    out.putInt(FORMAT_VERSION);
    out.putInt(stripeIndex);
    out.putLong(segmentId);
    out.putInt(checksum(out, start));
  }

  /**
   * Decodes the header at {@code in}'s position, advancing it by {@link #BYTES}.
   *
   * @param file named in the exception
   * @throws CorruptionException on a wrong magic, an unknown version or a checksum mismatch
   */
  static SegmentHeader decode(ByteBuffer in, Path file) throws CorruptionException {
    int start = in.position();
    int magic = in.getInt();
    int version = in.getInt();
    int stripe = in.getInt();
    long id = in.getLong();
    int stored = in.getInt();
    if (magic != MAGIC) {
      throw new CorruptionException(
          file, start, "not a commit-log segment: magic 0x" + Integer.toHexString(magic));
    }
    if (stored != checksum(in, start)) {
      throw new CorruptionException(file, start, "segment header checksum mismatch");
    }
    if (version != FORMAT_VERSION) {
      throw new CorruptionException(
          file,
          start,
          "unsupported commit-log format version " + version + " (this build reads 1)");
    }
    if (stripe < 0 || id < 0) {
      throw new CorruptionException(
          file, start, "negative stripe index or segment id: " + stripe + ", " + id);
    }
    return new SegmentHeader(stripe, id);
  }

  private static int checksum(ByteBuffer buffer, int start) {
    CRC32C crc = new CRC32C();
    crc.update(buffer.duplicate().limit(start + CHECKSUMMED_BYTES).position(start));
    return (int) crc.getValue();
  }
}
