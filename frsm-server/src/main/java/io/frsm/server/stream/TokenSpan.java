package io.frsm.server.stream;

import java.util.List;

/**
 * Tokens {@code [first, last]}, both inclusive and {@code first <= last}: what the engine's
 * exportRange and importTables take. A ring range {@code (fromExclusive, toInclusive]} (the
 * convention of io.frsm.server.ring.TokenRange) is one span, or two when it wraps past {@link
 * Long#MAX_VALUE}.
 */
record TokenSpan(long first, long last) {
  TokenSpan {
    if (first > last) {
      throw new IllegalArgumentException("token span [" + first + ", " + last + "] is empty");
    }
  }

  /**
   * The spans of {@code (fromExclusive, toInclusive]}: one if {@code from < to}; the whole ring if
   * {@code from == to}; else (wrapping) {@code [MIN, to]} and, unless {@code from} is MAX, {@code
   * [from + 1, MAX]}.
   */
  static List<TokenSpan> ofRange(long fromExclusive, long toInclusive) {
    if (fromExclusive < toInclusive) {
      return List.of(new TokenSpan(fromExclusive + 1, toInclusive));
    }
    if (fromExclusive == toInclusive) {
      return List.of(new TokenSpan(Long.MIN_VALUE, Long.MAX_VALUE));
    }
    TokenSpan low = new TokenSpan(Long.MIN_VALUE, toInclusive);
    return fromExclusive == Long.MAX_VALUE
        ? List.of(low)
        : List.of(low, new TokenSpan(fromExclusive + 1, Long.MAX_VALUE));
  }

  boolean contains(long token) {
    return token >= first && token <= last;
  }

  @Override
  public String toString() {
    return "[" + first + ", " + last + "]";
  }
}
