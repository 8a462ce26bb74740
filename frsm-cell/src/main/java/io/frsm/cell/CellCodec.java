package io.frsm.cell;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The binary form of a {@link Cell}, shared by commit-log records and SSTable entries. Documented
 * byte by byte in docs/FORMATS.md ("Cell"). Big-endian fixed-width integers; lengths as unsigned
 * LEB128 varints.
 *
 * <pre>
 *   u8      flags   bit0 promised present, bit1 accepted present, bit2 chosen,
 *                   bit3 purge present, bit4 accepted kind is DELETE_FOR_CELL,
 *                   bit5 accepted carries an idempotency token
 *   varint  key length, then the key bytes
 *   [promised]  i64 round, i32 nodeId, i32 boot
 *   [accepted]  i64 epoch, i64 timestamp, i64 round, i32 nodeId, i32 boot,
 *               varint value length, value bytes,
 *               [token] 16 bytes
 *   [purge]     i64 epoch, i64 timestamp, i64 markTimeMs
 *   i64     writeTimeMs
 * </pre>
 *
 * DO NOT CHANGE the layout or flag bits: they are written to disk. A new layout needs a new format
 * version in the files that embed cells. Bit 5 was added compatibly: a cell without it has the old
 * layout and decodes as "no token"; a release before bit 5 rejects a cell that has it (unknown
 * flag), so a node cannot be downgraded past it once a tokened mutation was written.
 */
public final class CellCodec {
  static final int FLAG_PROMISED = 1;
  static final int FLAG_ACCEPTED = 1 << 1;
  static final int FLAG_CHOSEN = 1 << 2;
  static final int FLAG_PURGE = 1 << 3;
  static final int FLAG_DELETE = 1 << 4;
  static final int FLAG_TOKEN = 1 << 5;
  static final int KNOWN_FLAGS =
      FLAG_PROMISED | FLAG_ACCEPTED | FLAG_CHOSEN | FLAG_PURGE | FLAG_DELETE | FLAG_TOKEN;

  private static final int BALLOT_BYTES = 16;

  private CellCodec() {}

  /** Exact number of bytes {@link #encode} writes. */
  public static int encodedSize(Cell cell) {
    int size = 1 + varintSize(cell.key().length()) + cell.key().length();
    if (!cell.promised().isNone()) {
      size += BALLOT_BYTES;
    }
    AcceptedValue a = cell.accepted();
    if (a != null) {
      int len = a.valueUnsafe().length;
      size += 16 + BALLOT_BYTES + varintSize(len) + len;
      if (a.token() != null) {
        size += IdempotencyToken.BYTES;
      }
    }
    if (cell.purge() != null) {
      size += 24;
    }
    return size + 8;
  }

  public static void encode(Cell cell, ByteBuffer out) {
    AcceptedValue a = cell.accepted();
    int flags = 0;
    if (!cell.promised().isNone()) {
      flags |= FLAG_PROMISED;
    }
    if (a != null) {
      flags |= FLAG_ACCEPTED;
      if (a.chosen()) {
        flags |= FLAG_CHOSEN;
      }
      if (a.isDelete()) {
        flags |= FLAG_DELETE;
      }
      if (a.token() != null) {
        flags |= FLAG_TOKEN;
      }
    }
    if (cell.purge() != null) {
      flags |= FLAG_PURGE;
    }
    out.put((byte) flags);
    byte[] key = cell.key().bytesUnsafe();
    putVarint(out, key.length);
    out.put(key);
    if (!cell.promised().isNone()) {
      putBallot(out, cell.promised());
    }
    if (a != null) {
      out.putLong(a.epoch());
      out.putLong(a.timestamp());
      putBallot(out, a.accepted());
      byte[] v = a.valueUnsafe();
      putVarint(out, v.length);
      out.put(v);
      if (a.token() != null) {
        out.putLong(a.token().high());
        out.putLong(a.token().low());
      }
    }
    if (cell.purge() != null) {
      out.putLong(cell.purge().epoch());
      out.putLong(cell.purge().timestamp());
      out.putLong(cell.purge().markTimeMs());
    }
    out.putLong(cell.writeTimeMs());
  }

  public static byte[] encode(Cell cell) {
    ByteBuffer buf = ByteBuffer.allocate(encodedSize(cell));
    encode(cell, buf);
    return buf.array();
  }

  /**
   * Decodes one cell from {@code in}'s position, advancing it.
   *
   * @throws MalformedCellException if the bytes are not a valid cell (never an unchecked buffer or
   *     argument exception, and never a huge allocation from a damaged length)
   */
  public static Cell decode(ByteBuffer in) throws MalformedCellException {
    try {
      int flags = in.get() & 0xff;
      if ((flags & ~KNOWN_FLAGS) != 0) {
        throw new MalformedCellException("unknown cell flags 0x" + Integer.toHexString(flags));
      }
      boolean hasAccepted = (flags & FLAG_ACCEPTED) != 0;
      if (!hasAccepted && (flags & (FLAG_CHOSEN | FLAG_DELETE | FLAG_TOKEN)) != 0) {
        throw new MalformedCellException("chosen/delete/token flag without an accepted value");
      }
      byte[] key = getBytes(in, getVarint(in));
      Ballot promised = (flags & FLAG_PROMISED) != 0 ? getBallot(in) : Ballot.NONE;
      AcceptedValue accepted = null;
      if (hasAccepted) {
        long epoch = in.getLong();
        long timestamp = in.getLong();
        Ballot ballot = getBallot(in);
        byte[] value = getBytes(in, getVarint(in));
        IdempotencyToken token =
            (flags & FLAG_TOKEN) != 0 ? new IdempotencyToken(in.getLong(), in.getLong()) : null;
        CellKind kind = (flags & FLAG_DELETE) != 0 ? CellKind.DELETE_FOR_CELL : CellKind.LIVE;
        accepted =
            AcceptedValue.of(
                epoch, timestamp, ballot, kind, value, (flags & FLAG_CHOSEN) != 0, token);
      }
      PurgeMark purge = null;
      if ((flags & FLAG_PURGE) != 0) {
        purge = new PurgeMark(in.getLong(), in.getLong(), in.getLong());
      }
      long writeTime = in.getLong();
      return new Cell(Key.wrap(key), promised, accepted, purge, writeTime);
    } catch (BufferUnderflowException e) {
      throw new MalformedCellException("cell truncated");
    } catch (IllegalArgumentException e) {
      throw new MalformedCellException("invalid cell field: " + e.getMessage());
    }
  }

  private static void putBallot(ByteBuffer out, Ballot b) {
    out.putLong(b.round());
    out.putInt(b.nodeId());
    out.putInt(b.boot());
  }

  private static Ballot getBallot(ByteBuffer in) {
    return new Ballot(in.getLong(), in.getInt(), in.getInt());
  }

  private static byte[] getBytes(ByteBuffer in, int length) throws MalformedCellException {
    if (length > in.remaining()) {
      throw new MalformedCellException(
          "length " + length + " exceeds the " + in.remaining() + " bytes left");
    }
    byte[] b = new byte[length];
    in.get(b);
    return b;
  }

  public static int varintSize(int value) {
    int size = 1;
    while ((value & ~0x7f) != 0) {
      value >>>= 7;
      size++;
    }
    return size;
  }

  public static void putVarint(ByteBuffer out, int value) {
    while ((value & ~0x7f) != 0) {
      out.put((byte) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.put((byte) value);
  }

  /** Reads an unsigned LEB128 varint that must fit in a non-negative int. */
  public static int getVarint(ByteBuffer in) throws MalformedCellException {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.get() & 0xff;
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (result < 0 || (shift == 28 && b > 0x07)) {
          throw new MalformedCellException("varint out of range");
        }
        return result;
      }
    }
    throw new MalformedCellException("varint longer than 5 bytes");
  }
}
