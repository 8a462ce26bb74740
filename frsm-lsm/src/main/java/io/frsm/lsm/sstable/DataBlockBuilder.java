package io.frsm.lsm.sstable;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.cell.Key;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Builds one data block (the writer side of {@link DataBlock}):
 *
 * <pre>
 *   entry*             CellCodec encodings, in strictly increasing key order
 *   i64 token  x n     token of entry i
 *   u32 offset x n     start of entry i within the block
 *   u32 n
 *   u32 crc32c         of every byte above
 * </pre>
 *
 * Not thread-safe; reused for every block of one table.
 */
final class DataBlockBuilder {
  private byte[] buffer = new byte[8 * 1024];
  private int entriesBytes;
  private long[] tokens = new long[64];
  private int[] offsets = new int[64];
  private int count;
  private Key lastKey;

  /** REQUIRES: {@code cell}'s key is above every key added since the last {@link #reset}. */
  void add(Cell cell) {
    int length = CellCodec.encodedSize(cell);
    ensureCapacity(Math.addExact(sizeBytes(), length + SSTableFormat.BLOCK_TOKEN_BYTES + 4));
    if (count == tokens.length) {
      tokens = Arrays.copyOf(tokens, count * 2);
      offsets = Arrays.copyOf(offsets, count * 2);
    }
    CellCodec.encode(cell, ByteBuffer.wrap(buffer, entriesBytes, length));
    tokens[count] = cell.key().token();
    offsets[count] = entriesBytes;
    count++;
    entriesBytes += length;
    lastKey = cell.key();
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** The key of the last entry added. REQUIRES: not empty. */
  Key lastKey() {
    return lastKey;
  }

  /** The size the block has once finished. */
  int sizeBytes() {
    return entriesBytes
        + count * (SSTableFormat.BLOCK_TOKEN_BYTES + SSTableFormat.BLOCK_OFFSET_BYTES)
        + SSTableFormat.BLOCK_TAIL_BYTES;
  }

  /**
   * Appends trailer and checksum. The block is then {@link #buffer()}{@code [0, sizeBytes())} until
   * {@link #reset}. REQUIRES: not empty.
   */
  void finish() {
    assert count > 0 : "an empty block is never written";
    int at = entriesBytes;
    for (int i = 0; i < count; i++, at += SSTableFormat.BLOCK_TOKEN_BYTES) {
      SSTableFormat.putLong(buffer, at, tokens[i]);
    }
    for (int i = 0; i < count; i++, at += SSTableFormat.BLOCK_OFFSET_BYTES) {
      SSTableFormat.putInt(buffer, at, offsets[i]);
    }
    SSTableFormat.putInt(buffer, at, count);
    at += 4;
    SSTableFormat.putInt(buffer, at, SSTableFormat.crc32c(buffer, 0, at));
    assert at + SSTableFormat.CHECKSUM_BYTES == sizeBytes();
  }

  byte[] buffer() {
    return buffer;
  }

  void reset() {
    entriesBytes = 0;
    count = 0;
    lastKey = null;
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(needed, buffer.length * 2));
    }
  }
}
