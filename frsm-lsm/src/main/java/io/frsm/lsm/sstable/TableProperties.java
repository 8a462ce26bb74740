package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import io.frsm.cell.MalformedCellException;
import io.frsm.lsm.CorruptionException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * What a table holds, summarized so the engine can plan reads and compactions without touching data
 * blocks. Written and read side by side.
 *
 * <pre>
 *   payload = u64 cellCount, i64 maxWriteTimeMs, u8 flags (bit0: some cell has a purge mark),
 *             key firstKey, key lastKey           key = i64 token, varint length, bytes
 *   section = payload, u32 crc32c(payload)
 * </pre>
 */
record TableProperties(
    long cellCount, long maxWriteTimeMs, boolean hasPurgeMarks, Key firstKey, Key lastKey) {

  byte[] toSection() {
    int payload = 8 + 8 + 1 + SSTableFormat.keySize(firstKey) + SSTableFormat.keySize(lastKey);
    byte[] section = new byte[payload + SSTableFormat.CHECKSUM_BYTES];
    ByteBuffer out = ByteBuffer.wrap(section);
    out.putLong(cellCount);
    out.putLong(maxWriteTimeMs);
    out.put((byte) (hasPurgeMarks ? SSTableFormat.PROPERTY_FLAG_PURGE_MARKS : 0));
    SSTableFormat.putKey(out, firstKey);
    SSTableFormat.putKey(out, lastKey);
    assert out.position() == payload;
    SSTableFormat.putInt(section, payload, SSTableFormat.crc32c(section, 0, payload));
    return section;
  }

  static TableProperties parse(byte[] section, Path file, long offset) throws CorruptionException {
    int payload = SSTableFormat.verifiedPayloadLength(section, file, offset, "properties");
    ByteBuffer in = ByteBuffer.wrap(section, 0, payload);
    try {
      long cellCount = in.getLong();
      long maxWriteTimeMs = in.getLong();
      int flags = in.get() & 0xff;
      if ((flags & ~SSTableFormat.PROPERTY_FLAG_PURGE_MARKS) != 0) {
        throw new CorruptionException(
            file, offset, "properties: unknown flags 0x" + Integer.toHexString(flags));
      }
      Key first = SSTableFormat.getKey(in);
      Key last = SSTableFormat.getKey(in);
      if (cellCount < 1 || first.compareTo(last) > 0 || in.hasRemaining()) {
        throw new CorruptionException(file, offset, "properties inconsistent");
      }
      return new TableProperties(
          cellCount,
          maxWriteTimeMs,
          (flags & SSTableFormat.PROPERTY_FLAG_PURGE_MARKS) != 0,
          first,
          last);
    } catch (BufferUnderflowException | MalformedCellException e) {
      throw new CorruptionException(file, offset, "properties malformed", e);
    }
  }
}
