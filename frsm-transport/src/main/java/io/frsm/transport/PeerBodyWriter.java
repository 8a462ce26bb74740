package io.frsm.transport;

import static io.frsm.client.transport.ProtoFields.bool;
import static io.frsm.client.transport.ProtoFields.bytes;
import static io.frsm.client.transport.ProtoFields.int64;
import static io.frsm.client.transport.ProtoFields.messageField;
import static io.frsm.client.transport.ProtoFields.messageHeader;
import static io.frsm.client.transport.ProtoFields.sint64;
import static io.frsm.client.transport.ProtoFields.uint32;
import static io.frsm.client.transport.ProtoFields.uint64;

import com.google.protobuf.CodedOutputStream;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RoundId;
import io.frsm.consensus.core.TermRecord;
import java.io.IOException;

/**
 * Writes a core {@link Message} as the body of a {@code PeerEnvelope} straight into a {@link
 * CodedOutputStream}, the bytes the generated classes would write for the message {@link
 * PeerMessages#toBody} builds — without building it. Building it cost a builder and a message per
 * level (envelope, body, round id, ballots, accepted value) and a wrapper per bytes field, for
 * every peer message sent.
 *
 * <p>Byte for byte what protobuf writes (peer.proto, docs/formats/wire.md), which {@code
 * PeerBodyWriterTest} checks against the generated classes for every message kind: fields in number
 * order, proto3 scalars only when not 0 (bytes when not empty, bools when true), message fields
 * whenever {@link PeerMessages} sets them, even when empty (the proto3 field helpers are the client
 * codec's, {@link io.frsm.client.transport.ProtoFields}). Each {@code size} method mirrors its
 * {@code write} method; a length prefix needs the size before the content is written.
 */
final class PeerBodyWriter {
  private PeerBodyWriter() {}

  /** The {@code PeerEnvelope} field number of the body of {@code message} (peer.proto). */
  static int fieldNumber(Message message) {
    if (message instanceof Message.Prepare) {
      return 10;
    } else if (message instanceof Message.Promise) {
      return 11;
    } else if (message instanceof Message.Accept) {
      return 12;
    } else if (message instanceof Message.Accepted) {
      return 13;
    } else if (message instanceof Message.Reject) {
      return 14;
    } else if (message instanceof Message.Read) {
      return 15;
    } else if (message instanceof Message.ReadReply) {
      return 16;
    } else if (message instanceof Message.Commit) {
      return 17;
    } else if (message instanceof Message.TermPersist) {
      return 18;
    } else if (message instanceof Message.TermPersisted) {
      return 19;
    } else if (message instanceof Message.StaleTerm) {
      return 20;
    } else if (message instanceof Message.Purge) {
      return 21;
    } else if (message instanceof Message.ListKeys) {
      return 22;
    } else if (message instanceof Message.KeysListed) {
      return 23;
    } else if (message instanceof Message.StaleRing) {
      return 24;
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + message.getClass().getName() + ": add it to peer.proto");
  }

  /** The size of the body message's content (without its field tag and length). */
  static int size(Message message) {
    if (message instanceof Message.Prepare m) {
      return key(m.key())
          + round(m.round())
          + ballotField(3, m.ballot())
          + uint64(4, m.term())
          + uint64(5, m.ringVersion());
    } else if (message instanceof Message.Promise m) {
      return key(m.key())
          + round(m.round())
          + ballotField(3, m.ballot())
          + (m.previous().isNone() ? 0 : ballotField(4, m.previous()))
          + (m.accepted() == null ? 0 : acceptedField(5, m.accepted()));
    } else if (message instanceof Message.Accept m) {
      return key(m.key())
          + round(m.round())
          + acceptedField(3, m.proposal())
          + uint64(4, m.term())
          + uint64(5, m.ringVersion());
    } else if (message instanceof Message.Accepted m) {
      return key(m.key())
          + round(m.round())
          + ballotField(3, m.ballot())
          + uint64(4, m.epoch())
          + uint64(5, m.timestamp());
    } else if (message instanceof Message.Reject m) {
      return key(m.key())
          + round(m.round())
          + (m.ballot().isNone() ? 0 : ballotField(3, m.ballot()))
          + (m.promised().isNone() ? 0 : ballotField(4, m.promised()))
          + (m.accepted() == null ? 0 : acceptedField(5, m.accepted()));
    } else if (message instanceof Message.Read m) {
      return key(m.key()) + round(m.round()) + uint64(3, m.ringVersion());
    } else if (message instanceof Message.ReadReply m) {
      return key(m.key())
          + round(m.round())
          + (m.promised().isNone() ? 0 : ballotField(3, m.promised()))
          + (m.accepted() == null ? 0 : acceptedField(4, m.accepted()));
    } else if (message instanceof Message.Commit m) {
      return key(m.key()) + acceptedField(2, m.chosen());
    } else if (message instanceof Message.TermPersist m) {
      return key(m.key())
          + round(m.round())
          + uint32(3, m.range())
          + uint64(4, m.term())
          + uint64(5, m.ringVersion())
          + uint64(6, m.floorRound());
    } else if (message instanceof Message.TermPersisted m) {
      return key(m.key())
          + round(m.round())
          + uint64(3, m.term())
          + (m.previous() == null ? 0 : messageField(4, termRecordSize(m.previous())));
    } else if (message instanceof Message.StaleTerm m) {
      return key(m.key()) + round(m.round()) + uint64(3, m.term());
    } else if (message instanceof Message.Purge m) {
      return key(m.key())
          + uint64(2, m.mark().epoch())
          + uint64(3, m.mark().timestamp())
          + int64(4, m.mark().markTimeMs())
          + uint64(5, m.ringVersion());
    } else if (message instanceof Message.ListKeys m) {
      return key(m.key())
          + round(m.round())
          + uint32(3, m.range())
          + uint64(4, m.term())
          + sint64(5, m.fromToken())
          + sint64(6, m.toToken())
          + (m.after() == null ? 0 : bytes(7, m.after().bytesUnsafe()))
          + uint32(8, m.limit())
          + uint64(9, m.ringVersion());
    } else if (message instanceof Message.KeysListed m) {
      int size = key(m.key()) + round(m.round());
      for (Key k : m.keys()) {
        // A repeated bytes field writes every element, an empty one too.
        size += CodedOutputStream.computeByteArraySize(3, k.bytesUnsafe());
      }
      return size + bool(4, m.more());
    } else if (message instanceof Message.StaleRing m) {
      return key(m.key()) + round(m.round()) + uint64(3, m.ringVersion());
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + message.getClass().getName() + ": add it to peer.proto");
  }

  /** Writes the body message's content; {@code size(message)} bytes. */
  static void write(CodedOutputStream out, Message message) throws IOException {
    if (message instanceof Message.Prepare m) {
      key(out, m.key());
      round(out, m.round());
      ballotField(out, 3, m.ballot());
      uint64(out, 4, m.term());
      uint64(out, 5, m.ringVersion());
    } else if (message instanceof Message.Promise m) {
      key(out, m.key());
      round(out, m.round());
      ballotField(out, 3, m.ballot());
      if (!m.previous().isNone()) {
        ballotField(out, 4, m.previous());
      }
      if (m.accepted() != null) {
        acceptedField(out, 5, m.accepted());
      }
    } else if (message instanceof Message.Accept m) {
      key(out, m.key());
      round(out, m.round());
      acceptedField(out, 3, m.proposal());
      uint64(out, 4, m.term());
      uint64(out, 5, m.ringVersion());
    } else if (message instanceof Message.Accepted m) {
      key(out, m.key());
      round(out, m.round());
      ballotField(out, 3, m.ballot());
      uint64(out, 4, m.epoch());
      uint64(out, 5, m.timestamp());
    } else if (message instanceof Message.Reject m) {
      key(out, m.key());
      round(out, m.round());
      if (!m.ballot().isNone()) {
        ballotField(out, 3, m.ballot());
      }
      if (!m.promised().isNone()) {
        ballotField(out, 4, m.promised());
      }
      if (m.accepted() != null) {
        acceptedField(out, 5, m.accepted());
      }
    } else if (message instanceof Message.Read m) {
      key(out, m.key());
      round(out, m.round());
      uint64(out, 3, m.ringVersion());
    } else if (message instanceof Message.ReadReply m) {
      key(out, m.key());
      round(out, m.round());
      if (!m.promised().isNone()) {
        ballotField(out, 3, m.promised());
      }
      if (m.accepted() != null) {
        acceptedField(out, 4, m.accepted());
      }
    } else if (message instanceof Message.Commit m) {
      key(out, m.key());
      acceptedField(out, 2, m.chosen());
    } else if (message instanceof Message.TermPersist m) {
      key(out, m.key());
      round(out, m.round());
      uint32(out, 3, m.range());
      uint64(out, 4, m.term());
      uint64(out, 5, m.ringVersion());
      uint64(out, 6, m.floorRound());
    } else if (message instanceof Message.TermPersisted m) {
      key(out, m.key());
      round(out, m.round());
      uint64(out, 3, m.term());
      TermRecord r = m.previous();
      if (r != null) {
        messageHeader(out, 4, termRecordSize(r));
        uint64(out, 1, r.term());
        uint32(out, 2, r.holder());
        uint32(out, 3, r.boot());
        uint64(out, 4, r.floorRound());
      }
    } else if (message instanceof Message.StaleTerm m) {
      key(out, m.key());
      round(out, m.round());
      uint64(out, 3, m.term());
    } else if (message instanceof Message.Purge m) {
      key(out, m.key());
      uint64(out, 2, m.mark().epoch());
      uint64(out, 3, m.mark().timestamp());
      int64(out, 4, m.mark().markTimeMs());
      uint64(out, 5, m.ringVersion());
    } else if (message instanceof Message.ListKeys m) {
      key(out, m.key());
      round(out, m.round());
      uint32(out, 3, m.range());
      uint64(out, 4, m.term());
      sint64(out, 5, m.fromToken());
      sint64(out, 6, m.toToken());
      if (m.after() != null) {
        bytes(out, 7, m.after().bytesUnsafe());
      }
      uint32(out, 8, m.limit());
      uint64(out, 9, m.ringVersion());
    } else if (message instanceof Message.KeysListed m) {
      key(out, m.key());
      round(out, m.round());
      for (Key k : m.keys()) {
        out.writeByteArray(3, k.bytesUnsafe());
      }
      bool(out, 4, m.more());
    } else if (message instanceof Message.StaleRing m) {
      key(out, m.key());
      round(out, m.round());
      uint64(out, 3, m.ringVersion());
    } else {
      throw new IllegalArgumentException(
          "no wire mapping for " + message.getClass().getName() + ": add it to peer.proto");
    }
  }

  // ---- the shared parts: every message's key is field 1 and its round id field 2

  private static int key(Key key) {
    return bytes(1, key.bytesUnsafe());
  }

  private static void key(CodedOutputStream out, Key key) throws IOException {
    bytes(out, 1, key.bytesUnsafe());
  }

  private static int round(RoundId round) {
    return messageField(2, roundSize(round));
  }

  private static void round(CodedOutputStream out, RoundId round) throws IOException {
    messageHeader(out, 2, roundSize(round));
    uint32(out, 1, round.nodeId());
    uint32(out, 2, round.boot());
    uint64(out, 3, round.sequence());
  }

  private static int roundSize(RoundId round) {
    return uint32(1, round.nodeId()) + uint32(2, round.boot()) + uint64(3, round.sequence());
  }

  private static int termRecordSize(TermRecord r) {
    return uint64(1, r.term())
        + uint32(2, r.holder())
        + uint32(3, r.boot())
        + uint64(4, r.floorRound());
  }

  // ---- ballots: ⊥ is an absent field, decided by the caller

  private static int ballotField(int field, Ballot ballot) {
    return messageField(field, ballotSize(ballot));
  }

  private static void ballotField(CodedOutputStream out, int field, Ballot ballot)
      throws IOException {
    messageHeader(out, field, ballotSize(ballot));
    uint64(out, 1, ballot.round());
    uint32(out, 2, ballot.nodeId());
    uint32(out, 3, ballot.boot());
  }

  private static int ballotSize(Ballot ballot) {
    return uint64(1, ballot.round()) + uint32(2, ballot.nodeId()) + uint32(3, ballot.boot());
  }

  // ---- accepted parts (peer.proto AcceptedValue)

  private static int acceptedField(int field, AcceptedValue value) {
    return messageField(field, acceptedSize(value));
  }

  private static void acceptedField(CodedOutputStream out, int field, AcceptedValue value)
      throws IOException {
    messageHeader(out, field, acceptedSize(value));
    uint64(out, 1, value.epoch());
    uint64(out, 2, value.timestamp());
    ballotField(out, 3, value.accepted());
    out.writeEnum(4, kind(value));
    // The accepted value's own array: immutable, owned by the AcceptedValue, only read here.
    bytes(out, 5, value.valueUnsafe());
    bool(out, 6, value.chosen());
    IdempotencyToken token = value.token();
    if (token != null) {
      messageHeader(out, 7, IdempotencyToken.BYTES);
      // Big-endian, high half first (IdempotencyToken.bytes()); fixed64 is little-endian.
      out.writeFixed64NoTag(Long.reverseBytes(token.high()));
      out.writeFixed64NoTag(Long.reverseBytes(token.low()));
    }
  }

  private static int acceptedSize(AcceptedValue value) {
    return uint64(1, value.epoch())
        + uint64(2, value.timestamp())
        + ballotField(3, value.accepted())
        + CodedOutputStream.computeEnumSize(4, kind(value))
        + bytes(5, value.valueUnsafe())
        + bool(6, value.chosen())
        + (value.token() == null ? 0 : messageField(7, IdempotencyToken.BYTES));
  }

  /** peer.proto ValueKind: VALUE_KIND_LIVE = 1, VALUE_KIND_DELETE_FOR_CELL = 2. */
  private static int kind(AcceptedValue value) {
    return value.isDelete()
        ? io.frsm.transport.proto.ValueKind.VALUE_KIND_DELETE_FOR_CELL_VALUE
        : io.frsm.transport.proto.ValueKind.VALUE_KIND_LIVE_VALUE;
  }
}
