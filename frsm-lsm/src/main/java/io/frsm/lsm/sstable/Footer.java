package io.frsm.lsm.sstable;

import io.frsm.lsm.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The fixed-size end of every table: where the metadata sections are, which format wrote them, and
 * the magic number. Written and read side by side.
 *
 * <pre>
 *   u64 bloomOffset,      u32 bloomLength
 *   u64 propertiesOffset, u32 propertiesLength
 *   u64 indexOffset,      u32 indexLength
 *   u32 formatVersion
 *   u32 crc32c            of the 40 bytes above
 *   u64 magic             "frsm.sst"
 * </pre>
 *
 * Section lengths include each section's own trailing checksum.
 */
record Footer(Section bloom, Section properties, Section index, int formatVersion) {

  /** A byte range of the file. */
  record Section(long offset, int length) {
    long end() {
      return offset + length;
    }
  }

  private static final int CHECKED_BYTES = 3 * (8 + 4) + 4;

  byte[] toBytes() {
    byte[] bytes = new byte[SSTableFormat.FOOTER_BYTES];
    ByteBuffer out = ByteBuffer.wrap(bytes);
    for (Section s : new Section[] {bloom, properties, index}) {
      out.putLong(s.offset());
      out.putInt(s.length());
    }
    out.putInt(formatVersion);
    out.putInt(SSTableFormat.crc32c(bytes, 0, CHECKED_BYTES));
    out.putLong(SSTableFormat.MAGIC);
    return bytes;
  }

  /**
   * Parses the footer found at {@code offset} and checks, in this order, magic (is it a table, is
   * it whole), checksum, version, and that the sections tile the file between the data blocks and
   * the footer.
   */
  static Footer parse(byte[] bytes, Path file, long offset) throws CorruptionException {
    assert bytes.length == SSTableFormat.FOOTER_BYTES;
    int magicAt = CHECKED_BYTES + SSTableFormat.CHECKSUM_BYTES;
    if (SSTableFormat.getLong(bytes, magicAt) != SSTableFormat.MAGIC) {
      throw new CorruptionException(
          file, offset + magicAt, "bad magic number (not an SSTable, or truncated)");
    }
    if (SSTableFormat.crc32c(bytes, 0, CHECKED_BYTES)
        != SSTableFormat.getInt(bytes, CHECKED_BYTES)) {
      throw new CorruptionException(file, offset, "footer checksum mismatch");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    Section bloom = new Section(in.getLong(), in.getInt());
    Section properties = new Section(in.getLong(), in.getInt());
    Section index = new Section(in.getLong(), in.getInt());
    int version = in.getInt();
    if (version != SSTableFormat.FORMAT_VERSION) {
      throw new CorruptionException(
          file,
          offset + CHECKED_BYTES - 4,
          "unsupported format version "
              + version
              + " (this build reads "
              + SSTableFormat.FORMAT_VERSION
              + ")");
    }
    if (bloom.offset() < 0
        || bloom.length() < SSTableFormat.CHECKSUM_BYTES
        || properties.offset() != bloom.end()
        || properties.length() < SSTableFormat.CHECKSUM_BYTES
        || index.offset() != properties.end()
        || index.length() < SSTableFormat.CHECKSUM_BYTES
        || index.end() != offset) {
      throw new CorruptionException(file, offset, "footer section handles do not tile the file");
    }
    return new Footer(bloom, properties, index, version);
  }
}
