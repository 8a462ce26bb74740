package io.frsm.lsm.manifest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A closed interval of tokens, {@code [fromToken, toToken]}: both ends included, so the whole token
 * space (up to {@link Long#MAX_VALUE}) can be named. Used for the quarantined part of a table: the
 * token span of a data block that failed its checksum.
 */
public record TokenInterval(long fromToken, long toToken) {

  public TokenInterval {
    if (fromToken > toToken) {
      throw new IllegalArgumentException("fromToken " + fromToken + " > toToken " + toToken);
    }
  }

  public boolean contains(long token) {
    return fromToken <= token && token <= toToken;
  }

  public boolean overlaps(long fromInclusive, long toInclusive) {
    return fromToken <= toInclusive && fromInclusive <= toToken;
  }

  public boolean contains(TokenInterval other) {
    return fromToken <= other.fromToken && other.toToken <= toToken;
  }

  /**
   * {@code intervals} sorted by start, with overlapping or touching ones joined: the canonical form
   * the manifest stores (so the same damage never takes more than one entry).
   */
  public static List<TokenInterval> normalize(List<TokenInterval> intervals) {
    List<TokenInterval> sorted = new ArrayList<>(intervals);
    sorted.sort(Comparator.comparingLong(TokenInterval::fromToken));
    List<TokenInterval> out = new ArrayList<>();
    for (TokenInterval t : sorted) {
      if (!out.isEmpty()) {
        TokenInterval last = out.get(out.size() - 1);
        boolean touches = last.toToken == Long.MAX_VALUE || t.fromToken <= last.toToken + 1;
        if (touches) {
          out.set(
              out.size() - 1, new TokenInterval(last.fromToken, Math.max(last.toToken, t.toToken)));
          continue;
        }
      }
      out.add(t);
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return "[" + fromToken + ", " + toToken + "]";
  }
}
