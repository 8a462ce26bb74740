package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.CellKind;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.RoundId;
import io.frsm.transport.proto.ValueKind;

/**
 * Converts the value types shared by peer messages (keys, ballots, round ids, accepted parts)
 * between their protobuf form and the storage model. Decoding checks every field before a domain
 * object is built, so a bad field becomes a {@link WireDecodeException} naming it: numbers the
 * protocol computes with (epochs, timestamps, ballot rounds, terms) must lie in {@code [0,
 * InputBounds.MAX_NUMBER]} (docs/formats/wire.md "Validated ranges").
 */
final class WireValues {
  private WireValues() {}

  // ---- keys

  /**
   * The key's own array, wrapped: a {@link Key} never writes it, and the message only reads it
   * while it is encoded. (Copying it, as {@code ByteString.copyFrom} does, made a copy per peer
   * message that was thrown away once the frame was written.)
   */
  static ByteString key(Key key) {
    return UnsafeByteOperations.unsafeWrap(key.bytesUnsafe());
  }

  static Key key(ByteString bytes, String where) throws WireDecodeException {
    if (bytes.isEmpty()) {
      throw new WireDecodeException(where + ": key is missing or empty");
    }
    return Key.wrap(bytes.toByteArray());
  }

  /** A key read as a fresh array of its own (null or empty: missing), which the key then owns. */
  static Key ownedKey(byte[] bytes, String where) throws WireDecodeException {
    if (bytes == null || bytes.length == 0) {
      throw new WireDecodeException(where + ": key is missing or empty");
    }
    return Key.wrap(bytes);
  }

  // ---- ballots

  /** ⊥ is encoded as an absent field, so this is only called for real ballots. */
  static io.frsm.transport.proto.Ballot ballot(Ballot ballot) {
    assert !ballot.isNone();
    return io.frsm.transport.proto.Ballot.newBuilder()
        .setRound(ballot.round())
        .setNodeId(ballot.nodeId())
        .setBoot(ballot.boot())
        .build();
  }

  /** A ballot field that may be ⊥ (absent, or round 0). */
  static Ballot ballotOrNone(boolean present, io.frsm.transport.proto.Ballot ballot, String where)
      throws WireDecodeException {
    return present
        ? ballotOrNone(true, ballot.getRound(), ballot.getNodeId(), ballot.getBoot(), where)
        : Ballot.NONE;
  }

  /** As above, from the ballot's fields as read (absent fields 0). */
  static Ballot ballotOrNone(boolean present, long round, int nodeId, int boot, String where)
      throws WireDecodeException {
    if (!present) {
      return Ballot.NONE;
    }
    // uint64/uint32 above the signed range arrive as negative Java numbers.
    if (round < 0 || round > InputBounds.MAX_NUMBER || nodeId < 0 || boot < 0) {
      throw new WireDecodeException(
          where + ": ballot field out of range " + text(round, nodeId, boot));
    }
    if (round == 0) {
      if (nodeId != 0 || boot != 0) {
        throw new WireDecodeException(
            where + ": ⊥ ballot with node or boot " + text(round, nodeId, boot));
      }
      return Ballot.NONE;
    }
    return new Ballot(round, nodeId, boot);
  }

  /** A ballot field that must hold a real ballot. */
  static Ballot realBallot(boolean present, io.frsm.transport.proto.Ballot ballot, String where)
      throws WireDecodeException {
    return present
        ? realBallot(true, ballot.getRound(), ballot.getNodeId(), ballot.getBoot(), where)
        : realBallot(false, 0, 0, 0, where);
  }

  /** As above, from the ballot's fields as read (absent fields 0). */
  static Ballot realBallot(boolean present, long round, int nodeId, int boot, String where)
      throws WireDecodeException {
    Ballot decoded = ballotOrNone(present, round, nodeId, boot, where);
    if (decoded.isNone()) {
      throw new WireDecodeException(where + ": ballot is missing");
    }
    return decoded;
  }

  private static String text(long round, int nodeId, int boot) {
    return "("
        + Long.toUnsignedString(round)
        + ", "
        + Integer.toUnsignedString(nodeId)
        + ", "
        + Integer.toUnsignedString(boot)
        + ")";
  }

  // ---- round ids: any bit pattern round-trips (uint32/uint64 carry Java ints/longs unchanged)

  static io.frsm.transport.proto.RoundId roundId(RoundId round) {
    return io.frsm.transport.proto.RoundId.newBuilder()
        .setNodeId(round.nodeId())
        .setBoot(round.boot())
        .setSequence(round.sequence())
        .build();
  }

  static RoundId roundId(boolean present, io.frsm.transport.proto.RoundId round, String where)
      throws WireDecodeException {
    return roundId(present, round.getNodeId(), round.getBoot(), round.getSequence(), where);
  }

  /** As above, from the round id's fields as read (absent fields 0). */
  static RoundId roundId(boolean present, int nodeId, int boot, long sequence, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + ": round id is missing");
    }
    return new RoundId(nodeId, boot, sequence);
  }

  // ---- numbers the protocol computes with: epochs, timestamps, terms, times

  /**
   * A uint64 field that must lie in {@code [0, InputBounds.MAX_NUMBER]}, so that the protocol's
   * {@code +1} and {@code τ + T} cannot overflow.
   */
  static long instanceField(long value, String field, String where) throws WireDecodeException {
    // A uint64 above 2^63-1 arrives as a negative Java long: unsigned, it is above the bound too.
    if (value < 0 || value > InputBounds.MAX_NUMBER) {
      throw new WireDecodeException(
          where
              + ": "
              + field
              + " "
              + Long.toUnsignedString(value)
              + " is above the maximum "
              + InputBounds.MAX_NUMBER);
    }
    return value;
  }

  // ---- accepted parts

  static io.frsm.transport.proto.AcceptedValue acceptedValue(AcceptedValue value) {
    io.frsm.transport.proto.AcceptedValue.Builder b =
        io.frsm.transport.proto.AcceptedValue.newBuilder();
    if (value.token() != null) {
      b.setToken(UnsafeByteOperations.unsafeWrap(value.token().bytes())); // a fresh copy
    }
    return b.setEpoch(value.epoch())
        .setTimestamp(value.timestamp())
        .setAccepted(ballot(value.accepted()))
        .setKind(
            value.isDelete() ? ValueKind.VALUE_KIND_DELETE_FOR_CELL : ValueKind.VALUE_KIND_LIVE)
        // The accepted value's own array: immutable, owned by it (AcceptedValue), only read here.
        .setValue(UnsafeByteOperations.unsafeWrap(value.valueUnsafe()))
        .setChosen(value.chosen())
        .build();
  }

  /** An accepted part that may be ⊥ (absent): returns null for ⊥, as the core expects. */
  static AcceptedValue acceptedValueOrNone(
      boolean present, io.frsm.transport.proto.AcceptedValue value, String where)
      throws WireDecodeException {
    return present ? acceptedValue(value, where) : null;
  }

  static AcceptedValue requiredAcceptedValue(
      boolean present, io.frsm.transport.proto.AcceptedValue value, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + " is missing");
    }
    return acceptedValue(value, where);
  }

  /**
   * The accepted part's ballot, which must be real. A valid one is built without {@code where}'s
   * text (every promise, accept and commit carries one: the concatenation was ~1 % of a settle's
   * CPU, docs/BENCHMARKS.md 2026-11-28 evening); anything else goes through {@link #realBallot} for
   * the same refusal as before.
   */
  private static Ballot acceptedBallot(
      boolean present, long round, int nodeId, int boot, String where) throws WireDecodeException {
    if (present && round > 0 && round <= InputBounds.MAX_NUMBER && nodeId >= 0 && boot >= 0) {
      return new Ballot(round, nodeId, boot); // what ballotOrNone returns for these fields
    }
    return realBallot(present, round, nodeId, boot, where + ".accepted");
  }

  private static AcceptedValue acceptedValue(
      io.frsm.transport.proto.AcceptedValue value, String where) throws WireDecodeException {
    io.frsm.transport.proto.Ballot accepted = value.getAccepted();
    return acceptedValue(
        value.getEpoch(),
        value.getTimestamp(),
        value.hasAccepted(),
        accepted.getRound(),
        accepted.getNodeId(),
        accepted.getBoot(),
        value.getKindValue(),
        value.getValue().toByteArray(),
        value.getChosen(),
        value.getToken().isEmpty() ? null : value.getToken().toByteArray(),
        where);
  }

  /**
   * An accepted part from its fields as read (absent numbers 0): {@code value} is a fresh array the
   * accepted value then owns (empty when absent), {@code token} null or empty when absent.
   */
  static AcceptedValue acceptedValue(
      long epochField,
      long timestampField,
      boolean ballotPresent,
      long ballotRound,
      int ballotNodeId,
      int ballotBoot,
      int kindNumber,
      byte[] value,
      boolean chosen,
      byte[] tokenBytes,
      String where)
      throws WireDecodeException {
    long epoch = instanceField(epochField, "epoch", where);
    long timestamp = instanceField(timestampField, "timestamp", where);
    Ballot accepted = acceptedBallot(ballotPresent, ballotRound, ballotNodeId, ballotBoot, where);
    CellKind kind =
        switch (kindNumber) {
          case ValueKind.VALUE_KIND_LIVE_VALUE -> CellKind.LIVE;
          case ValueKind.VALUE_KIND_DELETE_FOR_CELL_VALUE -> CellKind.DELETE_FOR_CELL;
          default ->
              throw new WireDecodeException(
                  where + ": value kind missing or unknown (" + kindNumber + ")");
        };
    if (kind == CellKind.DELETE_FOR_CELL && value.length != 0) {
      throw new WireDecodeException(where + ": a delete carries no value bytes");
    }
    IdempotencyToken token = null;
    if (tokenBytes != null && tokenBytes.length != 0) {
      if (tokenBytes.length != IdempotencyToken.BYTES) {
        throw new WireDecodeException(
            where + ": idempotency token of " + tokenBytes.length + " bytes, not 16");
      }
      token = IdempotencyToken.of(tokenBytes);
    }
    return AcceptedValue.of(epoch, timestamp, accepted, kind, value, chosen, token);
  }
}
