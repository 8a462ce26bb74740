package io.frsm.cell;

import java.nio.ByteBuffer;

/**
 * A 128-bit token a client attaches to one mutation, chosen and stored with the value it proposes
 * (docs/PROTOCOL.md "Idempotent resends"). A resend of the same mutation carries the same token, so
 * the leader can tell "the newest chosen value is this mutation's own" from "someone else wrote".
 *
 * <p>Not user data: reads never return it. Not part of the join order: one ballot carries one value
 * per instance, token included. Immutable; equal iff the 16 bytes are equal.
 */
public final class IdempotencyToken {
  /** Length of the token on disk and on the wire. */
  public static final int BYTES = 16;

  private final long high;
  private final long low;

  public IdempotencyToken(long high, long low) {
    this.high = high;
    this.low = low;
  }

  /**
   * The token whose bytes are {@code bytes} (big-endian: high half first).
   *
   * @throws IllegalArgumentException unless {@code bytes} has exactly {@link #BYTES} bytes
   */
  public static IdempotencyToken of(byte[] bytes) {
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException(
          "an idempotency token has " + BYTES + " bytes, not " + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new IdempotencyToken(b.getLong(), b.getLong());
  }

  public long high() {
    return high;
  }

  public long low() {
    return low;
  }

  /** A fresh copy of the 16 bytes, high half first. */
  public byte[] bytes() {
    return ByteBuffer.allocate(BYTES).putLong(high).putLong(low).array();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyToken t && t.high == high && t.low == low;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(high) * 31 + Long.hashCode(low);
  }

  @Override
  public String toString() {
    return String.format("%016x%016x", high, low);
  }
}
