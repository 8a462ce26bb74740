package io.frsm.consensus.core;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where an acceptor keeps the range terms it persisted (docs/DESIGN.md "Lease invariant" rule 4):
 * one reserved cell per range, written through the normal {@link Effect.Persist} path. The term is
 * the round of the cell's promised ballot, so the cell merge (max promise) keeps the highest term
 * ever persisted and a term never goes back, across commit-log replay and compaction alike.
 *
 * <p>Reserved keys start with a zero byte and {@code frsm/range-term/}; client operations on them
 * are refused.
 */
public final class RangeTerm {
  private static final byte[] PREFIX = "\0frsm/range-term/".getBytes(StandardCharsets.US_ASCII);

  private RangeTerm() {}

  /** The reserved key holding range {@code range}'s persisted term. */
  public static Key cellKey(int range) {
    byte[] suffix = Integer.toString(range).getBytes(StandardCharsets.US_ASCII);
    byte[] bytes = Arrays.copyOf(PREFIX, PREFIX.length + suffix.length);
    System.arraycopy(suffix, 0, bytes, PREFIX.length, suffix.length);
    return Key.wrap(bytes);
  }

  public static boolean isReserved(Key key) {
    byte[] b = key.bytesUnsafe();
    return b.length >= PREFIX.length
        && Arrays.equals(b, 0, PREFIX.length, PREFIX, 0, PREFIX.length);
  }

  /** The range a reserved key names, or -1 if {@code key} is not a well-formed range-term key. */
  public static int rangeOf(Key key) {
    if (!isReserved(key)) {
      return -1;
    }
    byte[] b = key.bytesUnsafe();
    int digits = b.length - PREFIX.length;
    if (digits < 1 || digits > 9 || (digits > 1 && b[PREFIX.length] == '0')) {
      return -1;
    }
    int range = 0;
    for (int i = PREFIX.length; i < b.length; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return -1;
      }
      range = range * 10 + (b[i] - '0');
    }
    return range;
  }

  /** The delta that persists {@code term} (≥ 1) for {@code range}. */
  static Cell termCell(int range, long term, long writeTimeMs) {
    if (term < 1) {
      throw new IllegalArgumentException("terms start at 1: " + term);
    }
    return Cell.promise(cellKey(range), new Ballot(term, 0, 0), writeTimeMs);
  }

  /** The term a durable reserved cell holds; 0 if none was ever persisted. */
  static long termOf(Cell cell) {
    return cell == null ? 0 : cell.promised().round();
  }
}
