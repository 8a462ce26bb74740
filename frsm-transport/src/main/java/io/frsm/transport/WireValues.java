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
    if (!present) {
      return Ballot.NONE;
    }
    long round = ballot.getRound();
    int nodeId = ballot.getNodeId();
    int boot = ballot.getBoot();
    // uint64/uint32 above the signed range arrive as negative Java numbers.
    if (round < 0 || round > InputBounds.MAX_NUMBER || nodeId < 0 || boot < 0) {
      throw new WireDecodeException(where + ": ballot field out of range " + text(ballot));
    }
    if (round == 0) {
      if (nodeId != 0 || boot != 0) {
        throw new WireDecodeException(where + ": ⊥ ballot with node or boot " + text(ballot));
      }
      return Ballot.NONE;
    }
    return new Ballot(round, nodeId, boot);
  }

  /** A ballot field that must hold a real ballot. */
  static Ballot realBallot(boolean present, io.frsm.transport.proto.Ballot ballot, String where)
      throws WireDecodeException {
    Ballot decoded = ballotOrNone(present, ballot, where);
    if (decoded.isNone()) {
      throw new WireDecodeException(where + ": ballot is missing");
    }
    return decoded;
  }

  private static String text(io.frsm.transport.proto.Ballot b) {
    return "("
        + Long.toUnsignedString(b.getRound())
        + ", "
        + Integer.toUnsignedString(b.getNodeId())
        + ", "
        + Integer.toUnsignedString(b.getBoot())
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
    if (!present) {
      throw new WireDecodeException(where + ": round id is missing");
    }
    return new RoundId(round.getNodeId(), round.getBoot(), round.getSequence());
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
  private static Ballot acceptedBallot(io.frsm.transport.proto.AcceptedValue value, String where)
      throws WireDecodeException {
    if (value.hasAccepted()) {
      io.frsm.transport.proto.Ballot b = value.getAccepted();
      long round = b.getRound();
      int nodeId = b.getNodeId();
      int boot = b.getBoot();
      if (round > 0 && round <= InputBounds.MAX_NUMBER && nodeId >= 0 && boot >= 0) {
        return new Ballot(round, nodeId, boot); // what ballotOrNone returns for these fields
      }
    }
    return realBallot(value.hasAccepted(), value.getAccepted(), where + ".accepted");
  }

  private static AcceptedValue acceptedValue(
      io.frsm.transport.proto.AcceptedValue value, String where) throws WireDecodeException {
    long epoch = instanceField(value.getEpoch(), "epoch", where);
    long timestamp = instanceField(value.getTimestamp(), "timestamp", where);
    Ballot accepted = acceptedBallot(value, where);
    CellKind kind =
        switch (value.getKind()) {
          case VALUE_KIND_LIVE -> CellKind.LIVE;
          case VALUE_KIND_DELETE_FOR_CELL -> CellKind.DELETE_FOR_CELL;
          case VALUE_KIND_UNSPECIFIED, UNRECOGNIZED ->
              throw new WireDecodeException(
                  where + ": value kind missing or unknown (" + value.getKindValue() + ")");
        };
    if (kind == CellKind.DELETE_FOR_CELL && !value.getValue().isEmpty()) {
      throw new WireDecodeException(where + ": a delete carries no value bytes");
    }
    IdempotencyToken token = null;
    if (!value.getToken().isEmpty()) {
      if (value.getToken().size() != IdempotencyToken.BYTES) {
        throw new WireDecodeException(
            where + ": idempotency token of " + value.getToken().size() + " bytes, not 16");
      }
      token = IdempotencyToken.of(value.getToken().toByteArray());
    }
    return AcceptedValue.of(
        epoch, timestamp, accepted, kind, value.getValue().toByteArray(), value.getChosen(), token);
  }
}
