package io.frsm.lsm.sstable;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.cell.CellKeyDecoder;
import io.frsm.cell.Key;
import io.frsm.cell.MalformedCellException;
import io.frsm.cell.Token;
import io.frsm.lsm.CorruptionException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One verified data block in memory (the reader side of {@link DataBlockBuilder}, which documents
 * the layout). Immutable and thread-safe: cached blocks are shared by every reader thread.
 *
 * <p>Point lookups binary-search the token array in the trailer and touch an entry's key bytes only
 * on a token tie, so a lookup reads about log2(n) longs and decodes exactly one cell. The token is
 * stored rather than recomputed because recomputing means a MurmurHash of the key per probe, and
 * because the contiguous token array keeps the search within a few cache lines; it costs 8 bytes
 * per entry (a few percent of a typical cell).
 */
final class DataBlock {
  private final byte[] bytes;
  private final int count;
  private final int tokensStart;
  private final int offsetsStart;

  private DataBlock(byte[] bytes, int count, int tokensStart, int offsetsStart) {
    this.bytes = bytes;
    this.count = count;
    this.tokensStart = tokensStart;
    this.offsetsStart = offsetsStart;
  }

  /**
   * Verifies the checksum and the structure of a block read from {@code file} at {@code
   * blockOffset}, so later lookups need no bounds checks of their own.
   */
  static DataBlock parse(byte[] bytes, Path file, long blockOffset) throws CorruptionException {
    return parse(bytes, bytes.length, file, blockOffset);
  }

  /**
   * As {@link #parse(byte[], Path, long)} for a block in the first {@code length} bytes of {@code
   * bytes}: a scan's reused read buffer, which may be longer than the block. Such a block must not
   * be cached or kept past the buffer's next read.
   */
  static DataBlock parse(byte[] bytes, int length, Path file, long blockOffset)
      throws CorruptionException {
    if (length < SSTableFormat.BLOCK_TAIL_BYTES) {
      throw new CorruptionException(file, blockOffset, "data block shorter than its trailer");
    }
    int crcAt = length - SSTableFormat.CHECKSUM_BYTES;
    if (SSTableFormat.crc32c(bytes, 0, crcAt) != SSTableFormat.getInt(bytes, crcAt)) {
      throw new CorruptionException(file, blockOffset, "data block checksum mismatch");
    }
    int count = SSTableFormat.getInt(bytes, crcAt - 4);
    long trailer =
        (long) count * (SSTableFormat.BLOCK_TOKEN_BYTES + SSTableFormat.BLOCK_OFFSET_BYTES);
    if (count <= 0 || trailer > crcAt - 4) {
      throw new CorruptionException(file, blockOffset, "data block entry count " + count);
    }
    int tokensStart = (int) (crcAt - 4 - trailer);
    int offsetsStart = tokensStart + count * SSTableFormat.BLOCK_TOKEN_BYTES;
    DataBlock block = new DataBlock(bytes, count, tokensStart, offsetsStart);
    block.verifyEntries(file, blockOffset);
    return block;
  }

  /** Entry offsets increase from 0 and every entry's key header lies inside the entry. */
  private void verifyEntries(Path file, long blockOffset) throws CorruptionException {
    int previousEnd = 0;
    for (int i = 0; i < count; i++) {
      int start = entryStart(i);
      if (start != previousEnd) {
        throw new CorruptionException(file, blockOffset, "data block entry " + i + " misplaced");
      }
      int end = entryEnd(i);
      if (end <= start) {
        throw new CorruptionException(file, blockOffset, "data block entry " + i + " misplaced");
      }
      ByteBuffer entry = ByteBuffer.wrap(bytes, start, end - start);
      try {
        entry.get();
        int keyLength = CellCodec.getVarint(entry);
        if (keyLength > entry.remaining()) {
          throw new CorruptionException(file, blockOffset, "data block entry " + i + " key");
        }
      } catch (MalformedCellException | BufferUnderflowException e) {
        throw new CorruptionException(file, blockOffset, "data block entry " + i + " key", e);
      }
      previousEnd = end;
    }
  }

  int count() {
    return count;
  }

  /** Heap bytes this block holds, for the cache's weight bound. */
  int weightBytes() {
    return bytes.length + 64;
  }

  long token(int i) {
    return SSTableFormat.getLong(bytes, tokensStart + i * SSTableFormat.BLOCK_TOKEN_BYTES);
  }

  private int entryStart(int i) {
    return SSTableFormat.getInt(bytes, offsetsStart + i * SSTableFormat.BLOCK_OFFSET_BYTES);
  }

  private int entryEnd(int i) {
    return i + 1 < count ? entryStart(i + 1) : tokensStart;
  }

  /**
   * Compares the position {@code (token, key)} with entry {@code i}'s key. The key starts after the
   * flags byte and a varint length (CellCodec layout), verified at parse time.
   */
  private int compareWithEntry(long token, byte[] key, int i) {
    long entryToken = token(i);
    if (token != entryToken) {
      return Long.compare(token, entryToken);
    }
    if (key == null) {
      return -1;
    }
    int at = entryStart(i) + 1;
    int keyLength = 0;
    for (int shift = 0; ; shift += 7) {
      int b = bytes[at++];
      keyLength |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
    }
    return SSTableFormat.compare(token, key, entryToken, bytes, at, at + keyLength);
  }

  /**
   * The first entry at or above {@code (token, key)}, or {@link #count()} if none; a null {@code
   * key} means the first entry with a token at or above {@code token}.
   */
  int ceiling(long token, byte[] key) {
    int low = 0;
    int high = count;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (compareWithEntry(token, key, mid) > 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** The entry holding exactly {@code key}, or -1. */
  int find(Key key) {
    int i = ceiling(key.token(), key.bytesUnsafe());
    return i < count && compareWithEntry(key.token(), key.bytesUnsafe(), i) == 0 ? i : -1;
  }

  /** Decodes entry {@code i}. The checksum passed, so a failure here is a writer bug. */
  Cell cell(int i, Path file, long blockOffset) throws CorruptionException {
    int start = entryStart(i);
    ByteBuffer entry = ByteBuffer.wrap(bytes, start, entryEnd(i) - start);
    Cell cell;
    try {
      cell = CellCodec.decode(entry);
    } catch (MalformedCellException e) {
      throw new CorruptionException(file, blockOffset, "data block entry " + i + ": " + e, e);
    }
    if (entry.hasRemaining() || cell.key().token() != token(i)) {
      throw new CorruptionException(
          file, blockOffset, "data block entry " + i + " does not match its trailer");
    }
    return cell;
  }

  /**
   * A view of this block's bytes for {@link #key}: one per iterator and block, because a view's
   * position is mutable state and blocks are shared between threads.
   */
  ByteBuffer entryView() {
    return ByteBuffer.wrap(bytes);
  }

  /**
   * The key of entry {@code i}, read through {@code view} (from {@link #entryView()}) without
   * decoding the rest of the cell: the listing's path. Fails on exactly the entries {@link #cell}
   * fails on (the same codec checks and the same trailer check), so both paths list a key or report
   * the same damage.
   */
  Key key(int i, ByteBuffer view, Path file, long blockOffset) throws CorruptionException {
    int start = entryStart(i);
    view.limit(entryEnd(i)).position(start);
    byte[] key;
    try {
      key = CellKeyDecoder.decodeKey(view);
    } catch (MalformedCellException e) {
      throw new CorruptionException(file, blockOffset, "data block entry " + i + ": " + e, e);
    }
    long token = Token.of(key);
    if (view.hasRemaining() || token != token(i)) {
      throw new CorruptionException(
          file, blockOffset, "data block entry " + i + " does not match its trailer");
    }
    return Key.wrap(key, token);
  }
}
