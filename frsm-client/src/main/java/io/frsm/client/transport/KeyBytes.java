package io.frsm.client.transport;

import java.util.Arrays;

/**
 * A key as the client protocol carries it: a non-empty byte string, compared by content. Owns its
 * array (copied in, never handed out mutable), so it can key a map. Immutable, thread-safe.
 */
public final class KeyBytes {
  private final byte[] bytes;
  private final int hash;

  private KeyBytes(byte[] bytes) {
    if (bytes.length == 0) {
      throw new IllegalArgumentException("a key is never empty");
    }
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  /** A key holding a copy of {@code bytes}. */
  public static KeyBytes of(byte[] bytes) {
    return new KeyBytes(bytes.clone());
  }

  /**
   * A key over {@code bytes} itself. REQUIRES: nobody writes to {@code bytes} afterwards (a freshly
   * decoded array).
   */
  public static KeyBytes wrap(byte[] bytes) {
    return new KeyBytes(bytes);
  }

  public int length() {
    return bytes.length;
  }

  /** A copy of the key's bytes. */
  public byte[] toByteArray() {
    return bytes.clone();
  }

  /** The key's own array, for encoders that only read it. Never write to it. */
  public byte[] bytesUnsafe() {
    return bytes;
  }

  /** Whether the key begins with {@code prefix}. */
  public boolean startsWith(byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyBytes k && hash == k.hash && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(Math.min(bytes.length, 32) * 2 + 8);
    for (int i = 0; i < Math.min(bytes.length, 32); i++) {
      s.append(Character.forDigit((bytes[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(bytes[i] & 0xf, 16));
    }
    return bytes.length > 32
        ? s.append("...(").append(bytes.length).append(')').toString()
        : s.toString();
  }
}
