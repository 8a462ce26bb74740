package io.frsm.lsm.sstable;

import io.frsm.cell.CellCodec;
import io.frsm.cell.Key;
import io.frsm.cell.MalformedCellException;
import io.frsm.cell.Token;
import io.frsm.lsm.CorruptionException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The constants of the SSTable file format and the small helpers its codecs share. The format is
 * documented byte by byte in docs/formats/sstable.md; every structure is read and written side by
 * side in one class ({@link DataBlockBuilder}/{@link DataBlock}, {@link BloomFilter}, {@link
 * BlockIndex}, {@link TableProperties}, {@link Footer}).
 *
 * <pre>
 *   file     = data-block* bloom-section properties-section index-section footer
 *   section  = payload u32-crc32c(payload)
 * </pre>
 *
 * All fixed-width integers are big-endian; lengths inside payloads are unsigned LEB128 varints.
 *
 * <p>DO NOT CHANGE any value here: they are written to disk. A different layout needs a new {@link
 * #FORMAT_VERSION} and a reader that still understands the old one.
 */
final class SSTableFormat {
  /** The last 8 bytes of every table: ASCII "frsm.sst". */
  static final long MAGIC = 0x6672736d2e737374L;

  static final int FORMAT_VERSION = 1;

  /** Three section handles (u64 offset, u32 length), u32 version, u32 crc32c, u64 magic. */
  static final int FOOTER_BYTES = 3 * (8 + 4) + 4 + 4 + 8;

  static final int CHECKSUM_BYTES = 4;

  /** Per entry in a data block's trailer: the entry's token (i64) and its offset (u32). */
  static final int BLOCK_TOKEN_BYTES = 8;

  static final int BLOCK_OFFSET_BYTES = 4;

  /** A data block ends with u32 entry count and u32 crc32c. */
  static final int BLOCK_TAIL_BYTES = 4 + CHECKSUM_BYTES;

  /** Properties flag: some cell carries a purge mark. */
  static final int PROPERTY_FLAG_PURGE_MARKS = 1;

  /** Upper bound on bloom filter hash functions; more never pays off below 43 bits per key. */
  static final int MAX_BLOOM_HASHES = 30;

  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private SSTableFormat() {}

  static long getLong(byte[] bytes, int at) {
    return (long) LONG_BE.get(bytes, at);
  }

  static int getInt(byte[] bytes, int at) {
    return (int) INT_BE.get(bytes, at);
  }

  static void putLong(byte[] bytes, int at, long value) {
    LONG_BE.set(bytes, at, value);
  }

  static void putInt(byte[] bytes, int at, int value) {
    INT_BE.set(bytes, at, value);
  }

  static int crc32c(byte[] bytes, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }

  /**
   * Verifies the trailing crc32c of a section read whole into {@code section} and returns the
   * payload length.
   */
  static int verifiedPayloadLength(byte[] section, Path file, long offset, String what)
      throws CorruptionException {
    if (section.length < CHECKSUM_BYTES) {
      throw new CorruptionException(file, offset, what + " shorter than its checksum");
    }
    int payload = section.length - CHECKSUM_BYTES;
    if (crc32c(section, 0, payload) != getInt(section, payload)) {
      throw new CorruptionException(file, offset, what + " checksum mismatch");
    }
    return payload;
  }

  /**
   * Compares the position {@code (token, key)} with the key stored as {@code (otherToken,
   * other[from, to))} in the (token, unsigned bytes) order of {@link Key}. A null {@code key} is
   * the position before every key of {@code token}. Allocates nothing.
   */
  static int compare(long token, byte[] key, long otherToken, byte[] other, int from, int to) {
    int c = Long.compare(token, otherToken);
    if (c != 0) {
      return c;
    }
    return key == null ? -1 : Arrays.compareUnsigned(key, 0, key.length, other, from, to);
  }

  /** Writes a key as i64 token, varint length, bytes (index and properties sections). */
  static void putKey(ByteBuffer out, Key key) {
    out.putLong(key.token());
    CellCodec.putVarint(out, key.length());
    out.put(key.bytesUnsafe());
  }

  static int keySize(Key key) {
    return 8 + CellCodec.varintSize(key.length()) + key.length();
  }

  /** Reads what {@link #putKey} wrote and checks that the stored token is the key's token. */
  static Key getKey(ByteBuffer in) throws MalformedCellException {
    try {
      long token = in.getLong();
      int length = CellCodec.getVarint(in);
      if (length > in.remaining()) {
        throw new MalformedCellException(
            "key length " + length + " exceeds the " + in.remaining() + " bytes left");
      }
      byte[] bytes = new byte[length];
      in.get(bytes);
      if (Token.of(bytes) != token) {
        throw new MalformedCellException("stored token does not match the key");
      }
      return Key.wrap(bytes, token);
    } catch (BufferUnderflowException e) {
      throw new MalformedCellException("key truncated");
    }
  }
}
