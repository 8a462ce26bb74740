package io.frsm.cell;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A key and its token, ordered by (token, unsigned bytes): one token range is one contiguous scan.
 *
 * <p>Immutable; the byte array is owned by the key and never exposed for writing.
 */
public final class Key implements Comparable<Key> {
  private final byte[] bytes;
  private final long token;

  private Key(byte[] bytes, long token) {
    this.bytes = bytes;
    this.token = token;
  }

  /** Copies {@code bytes}. */
  public static Key of(byte[] bytes) {
    byte[] copy = bytes.clone();
    return new Key(copy, Token.of(copy));
  }

  /**
   * Wraps {@code bytes} without copying. REQUIRES: the caller never modifies the array afterwards.
   */
  public static Key wrap(byte[] bytes) {
    return new Key(bytes, Token.of(bytes));
  }

  /** Wraps with a token already known (decoded from disk). Verified with assertions on. */
  public static Key wrap(byte[] bytes, long token) {
    assert Token.of(bytes) == token : "token does not match key";
    return new Key(bytes, token);
  }

  /**
   * A search bound that sorts before every key with {@code token} (and after every key with a
   * smaller token). Not a real key: never store it.
   */
  public static Key lowestWithToken(long token) {
    return new Key(new byte[0], token);
  }

  public long token() {
    return token;
  }

  public int length() {
    return bytes.length;
  }

  /** The key bytes. REQUIRES: the caller does not modify them. */
  public byte[] bytesUnsafe() {
    return bytes;
  }

  public byte[] toByteArray() {
    return bytes.clone();
  }

  @Override
  public int compareTo(Key o) {
    int c = Long.compare(token, o.token);
    return c != 0 ? c : Arrays.compareUnsigned(bytes, o.bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Key k && token == k.token && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(token);
  }

  @Override
  public String toString() {
    boolean printable = true;
    for (byte b : bytes) {
      if (b < 0x20 || b > 0x7e) {
        printable = false;
        break;
      }
    }
    return printable
        ? "'" + new String(bytes, java.nio.charset.StandardCharsets.US_ASCII) + "'"
        : "0x" + HexFormat.of().formatHex(bytes);
  }
}
