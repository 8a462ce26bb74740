package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellKind;
import io.frsm.cell.Key;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where an acceptor keeps the range terms it persisted (docs/DESIGN.md "Lease invariant" rule 4):
 * one reserved cell per range, written through the normal {@link Effect.Persist} path. The term is
 * the round of the cell's promised ballot, so the cell merge (max promise) keeps the highest term
 * ever persisted and a term never goes back, across commit-log replay and compaction alike.
 *
 * <p>With hand-offs on, the holder's {@link TermRecord} rides in the same cell's accepted part
 * (docs/FORMATS.md "Range term cells"): instance {@code (term, 0)}, ballot {@code (term, holder,
 * boot)}, never chosen, and a value holding the floor round and the record of the term the replica
 * held before. The cell merge keeps the higher instance, so the highest term's record wins exactly
 * as its promise does. A cell without an accepted part (written before records, or with the mode
 * off) has no record.
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

  /** Version byte of a record's value. */
  private static final byte RECORD_V1 = 1;

  /** Version, holder, boot, floor; a flag; the previous record's term, holder, boot, floor. */
  private static final int RECORD_BYTES = 1 + 4 + 4 + 8 + 1 + 8 + 4 + 4 + 8;

  /**
   * The delta that persists {@code record}'s term for {@code range} at replica {@code replica},
   * with the record itself and {@code previous} (the record of the term the replica held before;
   * null: none known). The accepted part's ballot is {@code (term, replica, 0)}: each replica's
   * record is its own (the previous records differ), never a proposal that several replicas accept.
   */
  static Cell termCell(
      int range, int replica, TermRecord record, TermRecord previous, long writeTimeMs) {
    if (previous != null && previous.term() >= record.term()) {
      throw new IllegalArgumentException("previous " + previous + " not below " + record);
    }
    ByteBuffer b = ByteBuffer.allocate(RECORD_BYTES);
    b.put(RECORD_V1).putInt(record.holder()).putInt(record.boot()).putLong(record.floorRound());
    if (previous == null) {
      b.put((byte) 0).putLong(0).putInt(0).putInt(0).putLong(0);
    } else {
      b.put((byte) 1)
          .putLong(previous.term())
          .putInt(previous.holder())
          .putInt(previous.boot())
          .putLong(previous.floorRound());
    }
    Ballot own = new Ballot(record.term(), replica, 0);
    AcceptedValue part = AcceptedValue.live(record.term(), 0, own, b.array(), false);
    return new Cell(cellKey(range), new Ballot(record.term(), 0, 0), part, null, writeTimeMs);
  }

  /**
   * The record a durable reserved cell holds for the term it holds (its promise's round); null if
   * it holds none for that term (an older cell, a term raised by a listing, a malformed part).
   */
  static TermRecord recordOf(Cell cell) {
    TermRecord stored = storedRecord(cell);
    return stored != null && stored.term() == termOf(cell) ? stored : null;
  }

  /** The newest record the cell holds, whatever its term; null if none or malformed. */
  static TermRecord storedRecord(Cell cell) {
    ByteBuffer b = recordBytes(cell);
    if (b == null) {
      return null;
    }
    int holder = b.getInt(1);
    int boot = b.getInt(5);
    long floor = b.getLong(9);
    return new TermRecord(cell.accepted().epoch(), holder, boot, floor);
  }

  /** The previous record carried by the cell's newest record; null if none or malformed. */
  static TermRecord previousOf(Cell cell) {
    ByteBuffer b = recordBytes(cell);
    if (b == null || b.get(17) != 1) {
      return null;
    }
    long term = b.getLong(18);
    int holder = b.getInt(26);
    int boot = b.getInt(30);
    long floor = b.getLong(34);
    if (term < 1 || term >= cell.accepted().epoch() || holder < 0 || boot < 0 || floor < 1) {
      return null; // disk bytes: a record that cannot be right teaches nothing
    }
    return new TermRecord(term, holder, boot, floor);
  }

  /**
   * The record part's value as {@link #termCell} writes it; null for anything else (no part, or
   * bytes that cannot be one: hostile disk bytes teach nothing).
   */
  private static ByteBuffer recordBytes(Cell cell) {
    AcceptedValue a = cell == null ? null : cell.accepted();
    if (a == null) {
      return null;
    }
    byte[] v = a.valueUnsafe();
    if (a.kind() != CellKind.LIVE
        || v.length != RECORD_BYTES
        || v[0] != RECORD_V1
        || a.timestamp() != 0
        || a.epoch() < 1
        || a.epoch() != a.accepted().round()) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(v);
    if (b.getInt(1) < 0 || b.getInt(5) < 0 || b.getLong(9) < 1 || (v[17] != 0 && v[17] != 1)) {
      return null;
    }
    return b;
  }
}
