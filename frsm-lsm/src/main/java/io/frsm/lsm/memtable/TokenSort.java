package io.frsm.lsm.memtable;

import java.util.Arrays;

/**
 * Orders positions by a 64-bit token, as {@link io.frsm.cell.Key} orders keys first: a
 * least-significant-digit radix sort over primitive arrays.
 *
 * <p>Why not {@code Arrays.sort} with a comparator: replay sorts hundreds of thousands of cells
 * whose keys lie scattered over the heap, and every comparison would chase two pointers to read two
 * tokens. Here the tokens sit in one array and each pass streams through it, so sorting 360k tokens
 * costs milliseconds instead of the ~200 ms a comparator sort of the cells took.
 */
final class TokenSort {
  private static final int DIGIT_BITS = 8;
  private static final int BUCKETS = 1 << DIGIT_BITS;

  private TokenSort() {}

  /**
   * The positions {@code 0 .. count-1} ordered by {@code tokens[position]}, signed, ascending
   * (equal tokens in position order). {@code tokens} is not modified.
   */
  static int[] order(long[] tokens, int count) {
    if (count < 0 || count > tokens.length) {
      throw new IllegalArgumentException("count " + count + " for " + tokens.length + " tokens");
    }
    if (count == 0) {
      return new int[0];
    }
    // Flipping the sign bit maps signed order onto unsigned order, which digits sort by.
    long[] keys = new long[count];
    int[] positions = new int[count];
    for (int i = 0; i < count; i++) {
      keys[i] = tokens[i] ^ Long.MIN_VALUE;
      positions[i] = i;
    }
    long[] keysOut = new long[count];
    int[] positionsOut = new int[count];
    int[] offsets = new int[BUCKETS];
    for (int shift = 0; shift < Long.SIZE; shift += DIGIT_BITS) {
      Arrays.fill(offsets, 0);
      for (int i = 0; i < count; i++) {
        offsets[digit(keys[i], shift)]++;
      }
      if (offsets[digit(keys[0], shift)] == count) {
        continue; // every key has the same digit here: this pass would not move anything
      }
      int sum = 0;
      for (int b = 0; b < BUCKETS; b++) {
        int n = offsets[b];
        offsets[b] = sum;
        sum += n;
      }
      for (int i = 0; i < count; i++) {
        int to = offsets[digit(keys[i], shift)]++;
        keysOut[to] = keys[i];
        positionsOut[to] = positions[i];
      }
      long[] k = keys;
      keys = keysOut;
      keysOut = k;
      int[] p = positions;
      positions = positionsOut;
      positionsOut = p;
    }
    return positions;
  }

  private static int digit(long key, int shift) {
    return (int) (key >>> shift) & (BUCKETS - 1);
  }
}
