package io.frsm.cell;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Reads only the key of an encoded {@link Cell} ({@link CellCodec} layout) and steps over the rest.
 *
 * <p>Why: a key listing (a range scan's or a membership settle's page) needs the keys of every cell
 * of a range, not their values; decoding whole cells copied every value and built its ballots only
 * to drop them (issue 22: about a tenth of a settle's allocations).
 *
 * <p>It accepts exactly the bytes {@link CellCodec#decode} accepts and fails, with {@link
 * MalformedCellException}, on exactly the bytes decode rejects: the same flag rules, the same
 * bounds, and the same field checks that decode's constructors make ({@link Ballot}, {@link
 * AcceptedValue}). So a listing never includes a key whose cell a read would refuse as damaged. The
 * value's bytes are skipped, never read.
 */
public final class CellKeyDecoder {
  private CellKeyDecoder() {}

  /**
   * The key bytes (a fresh array) of the cell at {@code in}'s position; leaves {@code in} just past
   * the cell, as {@link CellCodec#decode} does.
   *
   * @throws MalformedCellException if decode would reject the bytes
   */
  public static byte[] decodeKey(ByteBuffer in) throws MalformedCellException {
    try {
      int flags = in.get() & 0xff;
      if ((flags & ~CellCodec.KNOWN_FLAGS) != 0) {
        throw new MalformedCellException("unknown cell flags 0x" + Integer.toHexString(flags));
      }
      boolean hasAccepted = (flags & CellCodec.FLAG_ACCEPTED) != 0;
      if (!hasAccepted
          && (flags & (CellCodec.FLAG_CHOSEN | CellCodec.FLAG_DELETE | CellCodec.FLAG_TOKEN))
              != 0) {
        throw new MalformedCellException("chosen/delete/token flag without an accepted value");
      }
      int keyLength = CellCodec.getVarint(in);
      if (keyLength > in.remaining()) {
        throw new MalformedCellException(
            "length " + keyLength + " exceeds the " + in.remaining() + " bytes left");
      }
      byte[] key = new byte[keyLength];
      in.get(key);
      if ((flags & CellCodec.FLAG_PROMISED) != 0) {
        checkBallot(in);
      }
      if (hasAccepted) {
        skipAccepted(in, flags);
      }
      if ((flags & CellCodec.FLAG_PURGE) != 0) {
        in.position(in.position() + 24); // a purge mark's three longs have no constraints
      }
      in.getLong(); // writeTimeMs: any value
      return key;
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      // Skipping with position(int) past the limit throws IllegalArgumentException: truncated.
      throw new MalformedCellException("cell truncated");
    }
  }

  /** The checks {@link AcceptedValue}'s constructor makes, without building one. */
  private static void skipAccepted(ByteBuffer in, int flags) throws MalformedCellException {
    long epoch = in.getLong();
    long timestamp = in.getLong();
    boolean real = checkBallot(in);
    int valueLength = CellCodec.getVarint(in);
    if (valueLength > in.remaining()) {
      throw new MalformedCellException(
          "length " + valueLength + " exceeds the " + in.remaining() + " bytes left");
    }
    in.position(in.position() + valueLength);
    if ((flags & CellCodec.FLAG_TOKEN) != 0) {
      in.position(in.position() + IdempotencyToken.BYTES);
    }
    if (epoch < 0 || timestamp < 0) {
      throw new MalformedCellException(
          "invalid cell field: instance fields must be >= 0: (" + epoch + ", " + timestamp + ")");
    }
    if (!real) {
      throw new MalformedCellException("invalid cell field: an accepted value needs a real ballot");
    }
    if ((flags & CellCodec.FLAG_DELETE) != 0 && valueLength != 0) {
      throw new MalformedCellException("invalid cell field: a delete carries no value");
    }
  }

  /**
   * Reads a ballot and makes {@link Ballot}'s checks; true if it is a real one (not {@link
   * Ballot#NONE}).
   */
  private static boolean checkBallot(ByteBuffer in) throws MalformedCellException {
    long round = in.getLong();
    int nodeId = in.getInt();
    int boot = in.getInt();
    if (round < 0 || nodeId < 0 || boot < 0) {
      throw new MalformedCellException("invalid cell field: ballot fields must be >= 0");
    }
    if (round == 0 && (nodeId != 0 || boot != 0)) {
      throw new MalformedCellException("invalid cell field: round 0 is reserved for Ballot.NONE");
    }
    return round != 0;
  }
}
