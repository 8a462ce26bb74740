package io.frsm.server.ring;

/**
 * The tokens {@code (startExclusive, endInclusive]} on the ring, wrapping past {@link
 * Long#MAX_VALUE} when {@code startExclusive >= endInclusive} (the range owned by the lowest vnode
 * token). A ring with a single token owns everything: {@code start == end}.
 */
public record TokenRange(long startExclusive, long endInclusive) {

  public boolean wraps() {
    return startExclusive >= endInclusive;
  }

  public boolean contains(long token) {
    if (!wraps()) {
      return token > startExclusive && token <= endInclusive;
    }
    return token > startExclusive || token <= endInclusive;
  }

  @Override
  public String toString() {
    return "(" + startExclusive + ", " + endInclusive + "]";
  }
}
