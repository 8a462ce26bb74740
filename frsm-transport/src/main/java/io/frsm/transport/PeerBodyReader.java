package io.frsm.transport;

import static io.frsm.transport.WireValues.instanceField;
import static io.frsm.transport.WireValues.ownedKey;

import com.google.protobuf.CodedInputStream;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.client.transport.UnknownFields;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.TermRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the body of a {@code PeerEnvelope} (peer.proto) straight into a core {@link Message}, with
 * the checks {@link PeerMessages#fromEnvelope} makes on the generated classes — without building
 * them (a builder, a message and, per bytes field, a wrapper per protobuf level, for every peer
 * message received). One reader per body: it holds the fields as read, then checks and maps them.
 *
 * <p>Reads what protobuf's parser reads, the same way (a differential test, {@code
 * PeerEnvelopeReaderTest}, holds it to the generated parser on valid, mutated and hand-made
 * bodies): fields in any order; a field again overwrites a number and merges a message (its fields
 * read into the same place); a known field number with another wire type, and every unknown field,
 * is skipped as protobuf skips it ({@link UnknownFields}, with the depth of messages protobuf
 * counts around it); a message field's length is held to what is left ({@code pushLimit}); an
 * end-group tag ends a message only where protobuf's would, and is then refused ({@code
 * checkLastTagWas(0)}). Bytes fields are read as fresh arrays ({@code readByteArray}), which the
 * decoded records own: nothing shares the frame.
 */
final class PeerBodyReader {
  private static final byte[] EMPTY = new byte[0];

  // Wire types (protobuf encoding).
  private static final int VARINT = 0;
  private static final int LENGTH_DELIMITED = 2;

  // What a body field is, per body field number (PeerEnvelope's 10-24) and field number (1-9).
  private static final byte NONE = 0;
  private static final byte KEY = 1; // bytes, field 1 of every body
  private static final byte ROUND = 2; // RoundId, field 2 (but Purge's field 2 is a number)
  private static final byte BALLOT_A = 3; // the body's first Ballot field
  private static final byte BALLOT_B = 4; // its second Ballot field
  private static final byte ACCEPTED = 5; // AcceptedValue
  private static final byte UINT64 = 6; // uint64, kept per field number
  private static final byte UINT32 = 7;
  private static final byte INT64 = 8;
  private static final byte SINT64 = 9;
  private static final byte BOOL = 10;
  private static final byte AFTER = 11; // ListKeys.after: bytes
  private static final byte KEYS = 12; // KeysListed.keys: repeated bytes
  private static final byte TERM_RECORD = 13; // TermPersisted.previous

  /** [body field number - 10][field number]: the field's type, NONE if unknown. */
  private static final byte[][] FIELDS = {
    /* 10 Prepare */ {NONE, KEY, ROUND, BALLOT_A, UINT64, UINT64},
    /* 11 Promise */ {NONE, KEY, ROUND, BALLOT_A, BALLOT_B, ACCEPTED},
    /* 12 Accept */ {NONE, KEY, ROUND, ACCEPTED, UINT64, UINT64},
    /* 13 Accepted */ {NONE, KEY, ROUND, BALLOT_A, UINT64, UINT64},
    /* 14 Reject */ {NONE, KEY, ROUND, BALLOT_A, BALLOT_B, ACCEPTED},
    /* 15 Read */ {NONE, KEY, ROUND, UINT64},
    /* 16 ReadReply */ {NONE, KEY, ROUND, BALLOT_A, ACCEPTED},
    /* 17 Commit */ {NONE, KEY, ACCEPTED},
    /* 18 TermPersist */ {NONE, KEY, ROUND, UINT32, UINT64, UINT64, UINT64},
    /* 19 TermPersisted */ {NONE, KEY, ROUND, UINT64, TERM_RECORD},
    /* 20 StaleTerm */ {NONE, KEY, ROUND, UINT64},
    /* 21 Purge */ {NONE, KEY, UINT64, UINT64, INT64, UINT64},
    /* 22 ListKeys */ {NONE, KEY, ROUND, UINT32, UINT64, SINT64, SINT64, AFTER, UINT32, UINT64},
    /* 23 KeysListed */ {NONE, KEY, ROUND, KEYS, BOOL},
    /* 24 StaleRing */ {NONE, KEY, ROUND, UINT64},
  };

  /** A message with no field this reader keeps: {@code PeerKeepalive}. */
  private static final byte[] NO_FIELDS = {};

  // The depths protobuf's parser counts, the envelope's fields at 0: the body's fields are one
  // message down, its round id, ballots, accepted value and term record two, and the accepted
  // value's ballot three. The body is read from a stream of its own, whose depth protobuf does not
  // count, so each skip names its depth (UnknownFields).
  private static final int BODY_DEPTH = 1;
  private static final int PART_DEPTH = 2;
  private static final int ACCEPTED_BALLOT_DEPTH = 3;

  /** The first and last body field numbers this reader knows (peer.proto's 10-24). */
  static final int FIRST_BODY = 10;

  static final int LAST_BODY = 24;

  private byte[] key;
  private boolean roundSet;
  private int roundNodeId;
  private int roundBoot;
  private long roundSequence;
  // Made when their field appears: most bodies (commits, accepts) have neither.
  private BallotFields ballotA;
  private BallotFields ballotB;
  private AcceptedFields accepted;

  /** Numbers by field number (1-9); a uint32 or bool kept in the low bits. */
  private long n2, n3, n4, n5, n6, n8, n9;

  private byte[] after;
  private List<byte[]> keys;
  private boolean termRecordSet;
  private long recordTerm;
  private int recordHolder;
  private int recordBoot;
  private long recordFloorRound;

  private PeerBodyReader() {}

  /**
   * The message in body field {@code bodyField} ({@link #FIRST_BODY}..{@link #LAST_BODY}), read
   * from {@code in} to its end.
   *
   * @throws IOException if the bytes do not parse (protobuf's own exceptions)
   * @throws WireDecodeException if a field is missing or out of its range
   */
  static Message read(int bodyField, CodedInputStream in) throws IOException, WireDecodeException {
    PeerBodyReader r = new PeerBodyReader();
    byte[] types = FIELDS[bodyField - FIRST_BODY];
    r.readFields(types, in);
    in.checkLastTagWas(0);
    return r.message(bodyField);
  }

  /**
   * Whether {@code bytes} parse as the message of body field {@code bodyField} (or the keep-alive,
   * field 25, which has no fields) — syntax only, as protobuf's parser checked each occurrence of a
   * body field. The keep-alive is read here too, not by its generated parser: that one would count
   * its message as the top, one level above where the envelope's parser had it.
   *
   * @throws IOException if they do not
   */
  static void checkSyntax(int bodyField, com.google.protobuf.ByteString bytes) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    new PeerBodyReader()
        .readFields(bodyField > LAST_BODY ? NO_FIELDS : FIELDS[bodyField - FIRST_BODY], in);
    in.checkLastTagWas(0);
  }

  private void readFields(byte[] types, CodedInputStream in) throws IOException {
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        return;
      }
      int field = tag >>> 3;
      byte type = field < types.length ? types[field] : NONE;
      if (type == NONE || (tag & 7) != wireType(type)) {
        if (!UnknownFields.skip(in, tag, BODY_DEPTH)) {
          return; // an end-group tag: the caller's checkLastTagWas refuses it
        }
        continue;
      }
      switch (type) {
        case KEY -> key = in.readByteArray();
        case ROUND -> readRound(in);
        case BALLOT_A -> {
          if (ballotA == null) {
            ballotA = new BallotFields();
          }
          ballotA.read(in, PART_DEPTH);
        }
        case BALLOT_B -> {
          if (ballotB == null) {
            ballotB = new BallotFields();
          }
          ballotB.read(in, PART_DEPTH);
        }
        case ACCEPTED -> {
          if (accepted == null) {
            accepted = new AcceptedFields();
          }
          accepted.read(in);
        }
        case UINT64 -> number(field, in.readUInt64());
        case UINT32 -> number(field, in.readUInt32());
        case INT64 -> number(field, in.readInt64());
        case SINT64 -> number(field, in.readSInt64());
        case BOOL -> number(field, in.readBool() ? 1 : 0);
        case AFTER -> after = in.readByteArray();
        case KEYS -> {
          if (keys == null) {
            keys = new ArrayList<>();
          }
          keys.add(in.readByteArray());
        }
        case TERM_RECORD -> readTermRecord(in);
        default -> throw new AssertionError(type);
      }
    }
  }

  private static int wireType(byte type) {
    return switch (type) {
      case UINT64, UINT32, INT64, SINT64, BOOL -> VARINT;
      default -> LENGTH_DELIMITED;
    };
  }

  private void number(int field, long value) {
    switch (field) {
      case 2 -> n2 = value;
      case 3 -> n3 = value;
      case 4 -> n4 = value;
      case 5 -> n5 = value;
      case 6 -> n6 = value;
      case 8 -> n8 = value;
      case 9 -> n9 = value;
      default -> throw new AssertionError(field);
    }
  }

  /**
   * Opens a message field: its length, held to what is left of the enclosing message. Returns the
   * enclosing limit, for {@link #end}.
   */
  private static int begin(CodedInputStream in) throws IOException {
    return in.pushLimit(in.readRawVarint32());
  }

  /** Closes a message field, refusing one that an end-group tag ended. */
  private static void end(CodedInputStream in, int enclosingLimit) throws IOException {
    in.checkLastTagWas(0);
    in.popLimit(enclosingLimit);
  }

  private void readRound(CodedInputStream in) throws IOException {
    roundSet = true;
    int limit = begin(in);
    fields:
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      switch (tag) {
        case 1 << 3 | VARINT -> roundNodeId = in.readUInt32();
        case 2 << 3 | VARINT -> roundBoot = in.readUInt32();
        case 3 << 3 | VARINT -> roundSequence = in.readUInt64();
        default -> {
          if (!UnknownFields.skip(in, tag, PART_DEPTH)) {
            break fields; // an end-group tag: end() refuses it
          }
        }
      }
    }
    end(in, limit);
  }

  private void readTermRecord(CodedInputStream in) throws IOException {
    termRecordSet = true;
    int limit = begin(in);
    fields:
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      switch (tag) {
        case 1 << 3 | VARINT -> recordTerm = in.readUInt64();
        case 2 << 3 | VARINT -> recordHolder = in.readUInt32();
        case 3 << 3 | VARINT -> recordBoot = in.readUInt32();
        case 4 << 3 | VARINT -> recordFloorRound = in.readUInt64();
        default -> {
          if (!UnknownFields.skip(in, tag, PART_DEPTH)) {
            break fields; // an end-group tag: end() refuses it
          }
        }
      }
    }
    end(in, limit);
  }

  /** A Ballot field's numbers as read; {@code set} once the field appeared. */
  private static final class BallotFields {
    boolean set;
    long round;
    int nodeId;
    int boot;

    /** Reads the message whose tag was just read, {@code depth} levels below the envelope. */
    void read(CodedInputStream in, int depth) throws IOException {
      set = true;
      int limit = begin(in);
      fields:
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        switch (tag) {
          case 1 << 3 | VARINT -> round = in.readUInt64();
          case 2 << 3 | VARINT -> nodeId = in.readUInt32();
          case 3 << 3 | VARINT -> boot = in.readUInt32();
          default -> {
            if (!UnknownFields.skip(in, tag, depth)) {
              break fields; // an end-group tag: end() refuses it
            }
          }
        }
      }
      end(in, limit);
    }
  }

  /** An AcceptedValue field as read. */
  private static final class AcceptedFields {
    long epoch;
    long timestamp;
    final BallotFields ballot = new BallotFields();
    int kind;
    byte[] value = EMPTY;
    boolean chosen;
    byte[] token;

    void read(CodedInputStream in) throws IOException {
      int limit = begin(in);
      fields:
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        switch (tag) {
          case 1 << 3 | VARINT -> epoch = in.readUInt64();
          case 2 << 3 | VARINT -> timestamp = in.readUInt64();
          case 3 << 3 | LENGTH_DELIMITED -> ballot.read(in, ACCEPTED_BALLOT_DEPTH);
          case 4 << 3 | VARINT -> kind = in.readEnum();
          case 5 << 3 | LENGTH_DELIMITED -> value = in.readByteArray();
          case 6 << 3 | VARINT -> chosen = in.readBool();
          case 7 << 3 | LENGTH_DELIMITED -> token = in.readByteArray();
          default -> {
            if (!UnknownFields.skip(in, tag, PART_DEPTH)) {
              break fields; // an end-group tag: end() refuses it
            }
          }
        }
      }
      end(in, limit);
    }

    AcceptedValue decode(String where) throws WireDecodeException {
      return WireValues.acceptedValue(
          epoch,
          timestamp,
          ballot.set,
          ballot.round,
          ballot.nodeId,
          ballot.boot,
          kind,
          value,
          chosen,
          token,
          where);
    }
  }

  // ---- checks and mapping: PeerMessages.fromEnvelope's, field for field

  private Message message(int bodyField) throws WireDecodeException {
    return switch (bodyField) {
      case 10 ->
          new Message.Prepare(
              key("prepare"),
              round("prepare"),
              realBallot(ballotA, "prepare.ballot"),
              instanceField(n4, "term", "prepare"),
              instanceField(n5, "ring_version", "prepare"));
      case 11 ->
          new Message.Promise(
              key("promise"),
              round("promise"),
              realBallot(ballotA, "promise.ballot"),
              ballotOrNone(ballotB, "promise.previous"),
              acceptedOrNone("promise.accepted"));
      case 12 -> {
        AcceptedValue proposal = requiredAccepted("accept.proposal");
        if (proposal.chosen()) {
          throw new WireDecodeException("accept.proposal is marked chosen");
        }
        yield new Message.Accept(
            key("accept"),
            round("accept"),
            proposal,
            instanceField(n4, "term", "accept"),
            instanceField(n5, "ring_version", "accept"));
      }
      case 13 ->
          new Message.Accepted(
              key("accepted"),
              round("accepted"),
              realBallot(ballotA, "accepted.ballot"),
              instanceField(n4, "epoch", "accepted"),
              instanceField(n5, "timestamp", "accepted"));
      case 14 ->
          new Message.Reject(
              key("reject"),
              round("reject"),
              ballotOrNone(ballotA, "reject.ballot"),
              ballotOrNone(ballotB, "reject.promised"),
              acceptedOrNone("reject.accepted"));
      case 15 ->
          new Message.Read(key("read"), round("read"), instanceField(n3, "ring_version", "read"));
      case 16 ->
          new Message.ReadReply(
              key("read_reply"),
              round("read_reply"),
              ballotOrNone(ballotA, "read_reply.promised"),
              acceptedOrNone("read_reply.accepted"));
      case 17 -> {
        AcceptedValue chosen = requiredAccepted("commit.chosen");
        if (!chosen.chosen()) {
          throw new WireDecodeException("commit.chosen is not marked chosen");
        }
        yield new Message.Commit(key("commit"), chosen);
      }
      case 18 -> termPersist();
      case 19 -> termPersisted();
      case 20 ->
          new Message.StaleTerm(
              key("stale_term"), round("stale_term"), instanceField(n3, "term", "stale_term"));
      case 21 ->
          new Message.Purge(
              key("purge"),
              new PurgeMark(
                  instanceField(n2, "epoch", "purge"),
                  instanceField(n3, "timestamp", "purge"),
                  instanceField(n4, "mark_time_ms", "purge")),
              instanceField(n5, "ring_version", "purge"));
      case 22 -> listKeys();
      case 23 -> keysListed();
      case 24 ->
          new Message.StaleRing(
              key("stale_ring"),
              round("stale_ring"),
              instanceField(n3, "ring_version", "stale_ring"));
      default -> throw new IllegalArgumentException("not a body field: " + bodyField);
    };
  }

  private Key key(String where) throws WireDecodeException {
    return ownedKey(key, where);
  }

  private io.frsm.consensus.core.RoundId round(String where) throws WireDecodeException {
    return WireValues.roundId(roundSet, roundNodeId, roundBoot, roundSequence, where);
  }

  /** A Ballot field that may be ⊥ (absent: {@code b} null). */
  private static io.frsm.cell.Ballot ballotOrNone(BallotFields b, String where)
      throws WireDecodeException {
    return b == null
        ? WireValues.ballotOrNone(false, 0, 0, 0, where)
        : WireValues.ballotOrNone(true, b.round, b.nodeId, b.boot, where);
  }

  /** A Ballot field that must hold a real ballot (absent: {@code b} null). */
  private static io.frsm.cell.Ballot realBallot(BallotFields b, String where)
      throws WireDecodeException {
    return b == null
        ? WireValues.realBallot(false, 0, 0, 0, where)
        : WireValues.realBallot(true, b.round, b.nodeId, b.boot, where);
  }

  private AcceptedValue acceptedOrNone(String where) throws WireDecodeException {
    return accepted == null ? null : accepted.decode(where);
  }

  private AcceptedValue requiredAccepted(String where) throws WireDecodeException {
    if (accepted == null) {
      throw new WireDecodeException(where + " is missing");
    }
    return accepted.decode(where);
  }

  private Message.TermPersist termPersist() throws WireDecodeException {
    int range = (int) n3;
    if (range < 0) {
      throw new WireDecodeException("term_persist: range " + Integer.toUnsignedString(range));
    }
    return new Message.TermPersist(
        key("term_persist"),
        round("term_persist"),
        range,
        instanceField(n4, "term", "term_persist"),
        instanceField(n5, "ring_version", "term_persist"),
        instanceField(n6, "floor_round", "term_persist"));
  }

  private Message.TermPersisted termPersisted() throws WireDecodeException {
    long term = instanceField(n3, "term", "term_persisted");
    TermRecord previous = null;
    if (termRecordSet) {
      long previousTerm = instanceField(recordTerm, "previous.term", "term_persisted");
      long floor = instanceField(recordFloorRound, "previous.floor_round", "term_persisted");
      if (previousTerm < 1
          || previousTerm >= term
          || recordHolder < 0
          || recordBoot < 0
          || floor < 1) {
        throw new WireDecodeException(
            "term_persisted: previous record ("
                + previousTerm
                + ", "
                + Integer.toUnsignedString(recordHolder)
                + ", "
                + Integer.toUnsignedString(recordBoot)
                + ", "
                + floor
                + ") for term "
                + term);
      }
      previous = new TermRecord(previousTerm, recordHolder, recordBoot, floor);
    }
    return new Message.TermPersisted(
        key("term_persisted"), round("term_persisted"), term, previous);
  }

  private Message.ListKeys listKeys() throws WireDecodeException {
    int range = (int) n3;
    int limit = (int) n8;
    if (range < 0 || limit <= 0) {
      throw new WireDecodeException(
          "list_keys: range "
              + Integer.toUnsignedString(range)
              + ", limit "
              + Integer.toUnsignedString(limit));
    }
    return new Message.ListKeys(
        key("list_keys"),
        round("list_keys"),
        range,
        instanceField(n4, "term", "list_keys"),
        n5,
        n6,
        after == null || after.length == 0 ? null : ownedKey(after, "list_keys.after"),
        limit,
        instanceField(n9, "ring_version", "list_keys"));
  }

  private Message.KeysListed keysListed() throws WireDecodeException {
    List<Key> listed = new ArrayList<>(keys == null ? 0 : keys.size());
    if (keys != null) {
      for (byte[] k : keys) {
        listed.add(ownedKey(k, "keys_listed.keys"));
      }
    }
    return new Message.KeysListed(key("keys_listed"), round("keys_listed"), listed, n4 != 0);
  }
}
