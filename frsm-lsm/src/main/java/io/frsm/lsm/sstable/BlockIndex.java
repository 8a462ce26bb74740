package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import io.frsm.cell.MalformedCellException;
import io.frsm.lsm.CorruptionException;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Where each data block lives and the last key it holds, written and read side by side. The reader
 * keeps it in memory as flat arrays, so finding a key's block is a binary search over longs (the
 * tokens) that touches key bytes only on a token tie and allocates nothing.
 *
 * <pre>
 *   payload = u32 blockCount, blockCount x entry
 *   entry   = i64 lastKeyToken, varint lastKeyLength, lastKey bytes, u64 blockOffset, u32 blockLength
 *   section = payload, u32 crc32c(payload)
 * </pre>
 *
 * Blocks are contiguous from file offset 0 in index order; {@link #parse} checks it.
 *
 * <p>Immutable once parsed; thread-safe.
 */
final class BlockIndex {
  private final long[] lastTokens;
  private final byte[] lastKeys;
  private final int[] lastKeyStarts; // block i's last key is lastKeys[lastKeyStarts[i], [i + 1])
  private final long[] offsets;
  private final int[] lengths;

  private BlockIndex(
      long[] lastTokens, byte[] lastKeys, int[] lastKeyStarts, long[] offsets, int[] lengths) {
    this.lastTokens = lastTokens;
    this.lastKeys = lastKeys;
    this.lastKeyStarts = lastKeyStarts;
    this.offsets = offsets;
    this.lengths = lengths;
  }

  int blockCount() {
    return offsets.length;
  }

  long offset(int block) {
    return offsets[block];
  }

  int length(int block) {
    return lengths[block];
  }

  long lastToken(int block) {
    return lastTokens[block];
  }

  /** The block that starts at file offset {@code offset}, or -1 if no block starts there. */
  int blockAt(long offset) {
    int b = java.util.Arrays.binarySearch(offsets, offset);
    return b >= 0 ? b : -1;
  }

  /** The file offset where the data blocks end. */
  long dataEnd() {
    int last = offsets.length - 1;
    return last < 0 ? 0 : offsets[last] + lengths[last];
  }

  /**
   * The first block whose last key is at or above {@code (token, key)} — the only block that can
   * hold that key — or {@link #blockCount()} if none. A null {@code key} is the position before
   * every key of {@code token}.
   */
  int ceilingBlock(long token, byte[] key) {
    int low = 0;
    int high = offsets.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      int c =
          SSTableFormat.compare(
              token, key, lastTokens[mid], lastKeys, lastKeyStarts[mid], lastKeyStarts[mid + 1]);
      if (c > 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  static BlockIndex parse(byte[] section, Path file, long offset) throws CorruptionException {
    int payload = SSTableFormat.verifiedPayloadLength(section, file, offset, "block index");
    ByteBuffer in = ByteBuffer.wrap(section, 0, payload);
    try {
      int count = in.getInt();
      // Each entry takes at least 8 + 1 + 8 + 4 bytes: bounds the allocation below.
      if (count < 1 || count > payload / 21) {
        throw new CorruptionException(file, offset, "block index count " + count);
      }
      long[] lastTokens = new long[count];
      int[] lastKeyStarts = new int[count + 1];
      long[] offsets = new long[count];
      int[] lengths = new int[count];
      ByteArrayOutputStream keys = new ByteArrayOutputStream(payload);
      Key previous = null;
      long expectedOffset = 0;
      for (int i = 0; i < count; i++) {
        Key last = SSTableFormat.getKey(in);
        if (previous != null && previous.compareTo(last) >= 0) {
          throw new CorruptionException(file, offset, "block index keys out of order at " + i);
        }
        offsets[i] = in.getLong();
        lengths[i] = in.getInt();
        if (offsets[i] != expectedOffset || lengths[i] <= 0) {
          throw new CorruptionException(
              file, offset, "block index entry " + i + " does not follow the previous block");
        }
        expectedOffset += lengths[i];
        lastTokens[i] = last.token();
        lastKeyStarts[i] = keys.size();
        keys.write(last.bytesUnsafe(), 0, last.length());
        previous = last;
      }
      lastKeyStarts[count] = keys.size();
      if (in.hasRemaining()) {
        throw new CorruptionException(file, offset, "block index has trailing bytes");
      }
      return new BlockIndex(lastTokens, keys.toByteArray(), lastKeyStarts, offsets, lengths);
    } catch (BufferUnderflowException | MalformedCellException e) {
      throw new CorruptionException(file, offset, "block index malformed", e);
    }
  }

  /** The writer side: collects one entry per finished block. Not thread-safe. */
  static final class Builder {
    private ByteBuffer entries = ByteBuffer.allocate(4096);
    private int count;

    void add(Key lastKey, long blockOffset, int blockLength) {
      int size = SSTableFormat.keySize(lastKey) + 8 + 4;
      if (entries.remaining() < size) {
        ByteBuffer grown =
            ByteBuffer.allocate(Math.max(entries.capacity() * 2, entries.position() + size));
        entries.flip();
        grown.put(entries);
        entries = grown;
      }
      SSTableFormat.putKey(entries, lastKey);
      entries.putLong(blockOffset);
      entries.putInt(blockLength);
      count++;
    }

    byte[] toSection() {
      int payload = 4 + entries.position();
      byte[] section = new byte[payload + SSTableFormat.CHECKSUM_BYTES];
      SSTableFormat.putInt(section, 0, count);
      System.arraycopy(entries.array(), 0, section, 4, entries.position());
      SSTableFormat.putInt(section, payload, SSTableFormat.crc32c(section, 0, payload));
      return section;
    }
  }
}
