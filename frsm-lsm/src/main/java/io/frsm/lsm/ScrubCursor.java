package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Where the scrub stands, persisted so a restart resumes the pass instead of starting it over
 * (docs/FORMATS.md "Scrub cursor"). A hint only: a missing or damaged cursor restarts the pass from
 * the oldest table, which costs time, never data.
 *
 * <pre>
 *   u32 magic 0x46525343 ("FRSC")   u16 version (1)
 *   u64 generation (the table being scrubbed; 0: none yet)   u32 next block   u64 passes done
 *   u32 CRC32C of every preceding byte
 * </pre>
 *
 * Big-endian, 30 bytes. DO NOT CHANGE: written to disk.
 *
 * @param generation the table the pass is in (tables are scrubbed oldest generation first)
 * @param nextBlock the first block of that table not yet verified
 * @param passesCompleted full passes over every table finished so far
 */
record ScrubCursor(long generation, int nextBlock, long passesCompleted) {
  static final String FILE_NAME = "SCRUB-CURSOR";
  static final int MAGIC = 0x46525343;
  static final short VERSION = 1;
  static final int BYTES = 4 + 2 + 8 + 4 + 8 + 4;
  static final ScrubCursor START = new ScrubCursor(0, 0, 0);

  ScrubCursor {
    if (generation < 0 || nextBlock < 0 || passesCompleted < 0) {
      throw new IllegalArgumentException(
          "negative scrub cursor " + generation + "/" + nextBlock + "/" + passesCompleted);
    }
  }

  byte[] encode() {
    ByteBuffer buf = ByteBuffer.allocate(BYTES);
    buf.putInt(MAGIC).putShort(VERSION).putLong(generation).putInt(nextBlock);
    buf.putLong(passesCompleted);
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, BYTES - 4);
    buf.putInt((int) crc.getValue());
    return buf.array();
  }

  /** The cursor in {@code bytes}; throws {@link CorruptionException} for anything else. */
  static ScrubCursor decode(Path file, byte[] bytes) throws CorruptionException {
    if (bytes.length != BYTES) {
      throw new CorruptionException(file, 0, "scrub cursor of " + bytes.length + " bytes");
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, BYTES - 4);
    if ((int) crc.getValue() != buf.getInt(BYTES - 4)) {
      throw new CorruptionException(file, BYTES - 4, "scrub cursor checksum mismatch");
    }
    if (buf.getInt() != MAGIC || buf.getShort() != VERSION) {
      throw new CorruptionException(file, 0, "not a scrub cursor of version " + VERSION);
    }
    try {
      return new ScrubCursor(buf.getLong(), buf.getInt(), buf.getLong());
    } catch (IllegalArgumentException e) {
      throw new CorruptionException(file, 6, e.getMessage());
    }
  }

  /** The persisted cursor, or {@link #START} if there is none or it cannot be read. */
  static ScrubCursor load(FileSystem fs, Path directory) {
    Path file = directory.resolve(FILE_NAME);
    if (!fs.exists(file)) {
      return START;
    }
    try (ReadableFile in = fs.openRead(file)) {
      long size = in.size();
      byte[] bytes = new byte[(int) Math.min(size, BYTES + 1)];
      in.readFully(ByteBuffer.wrap(bytes), 0);
      return decode(file, bytes);
    } catch (IOException e) {
      System.getLogger(ScrubCursor.class.getName())
          .log(System.Logger.Level.WARNING, "scrub cursor unreadable: the pass starts over", e);
      return START;
    }
  }

  /** Replaces the persisted cursor atomically (write aside, sync, rename). */
  void store(FileSystem fs, Path directory) throws IOException {
    Path file = directory.resolve(FILE_NAME);
    Path tmp = directory.resolve(FILE_NAME + ".tmp");
    fs.delete(tmp);
    try (WritableFile out = fs.create(tmp)) {
      out.write(ByteBuffer.wrap(encode()));
      out.sync();
    }
    fs.rename(tmp, file);
    fs.syncDirectory(directory);
  }
}
