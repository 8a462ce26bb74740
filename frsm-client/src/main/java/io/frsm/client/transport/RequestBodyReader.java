package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;

/**
 * Reads a {@code ClientRequest} (client.proto) straight into an {@link OperationRequest}, with the
 * checks and error texts {@link ClientMessages#request(io.frsm.client.proto.ClientRequest)} makes
 * on the generated classes (the same helpers) — without building them. Reads what protobuf's parser
 * reads, the same way: fields in any order; a field again overwrites a number or bytes and merges a
 * message; the operation is a oneof whose last case read wins, merged with that case's earlier
 * occurrences (protobuf-java's builders keep each case's); unknown fields and known numbers of
 * another wire type are skipped ({@link UnknownFields}); a message's length is held to what is left
 * ({@code pushLimit}). Keys, values and tokens are read as fresh arrays ({@code readByteArray}),
 * which the records own: nothing shares the frame.
 */
final class RequestBodyReader {
  private static final byte[] EMPTY = new byte[0];

  // Wire types (protobuf encoding).
  private static final int VARINT = 0;
  private static final int LENGTH_DELIMITED = 2;

  // What an operation's field is.
  private static final byte NONE = 0;
  private static final byte KEY = 1;
  private static final byte VALUE = 2;
  private static final byte EXPECTED = 3; // a Version message
  private static final byte TOKEN = 4;
  private static final byte RESEND = 5;
  private static final byte QUORUM = 6;

  /** The first operation field number of {@code ClientRequest} (Get; then Create .. Fence). */
  private static final int FIRST_OPERATION = 10;

  /** [operation field - 10][field number]: the field's meaning, NONE if unknown. */
  private static final byte[][] FIELDS = {
    /* 10 Get */ {NONE, KEY, QUORUM},
    /* 11 Create */ {NONE, KEY, VALUE, TOKEN, RESEND},
    /* 12 Cas */ {NONE, KEY, EXPECTED, VALUE, TOKEN, RESEND},
    /* 13 Delete */ {NONE, KEY, EXPECTED, TOKEN, RESEND},
    /* 14 Fence */ {NONE, KEY},
  };

  // The depths protobuf's parser counts (the envelope's fields are at 0).
  private static final int REQUEST_DEPTH = 1;
  private static final int OPERATION_DEPTH = 2;
  private static final int VERSION_DEPTH = 3;

  private long invokedAtMicros;

  /** The operation field read last (10-14), or 0. */
  private int operationField;

  /** Each case's fields as read, made when the case appears (one, from frsm). */
  private final Operation[] operations = new Operation[FIELDS.length];

  private RequestBodyReader() {}

  /**
   * Reads the body's fields, to the end of {@code in}.
   *
   * @throws IOException if they do not parse (protobuf's own exceptions)
   */
  static RequestBodyReader read(CodedInputStream in) throws IOException {
    RequestBodyReader r = new RequestBodyReader();
    r.readFields(in);
    return r;
  }

  private void readFields(CodedInputStream in) throws IOException {
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        return;
      }
      int field = tag >>> 3;
      if (tag == (1 << 3 | VARINT)) {
        invokedAtMicros = in.readUInt64();
      } else if ((tag & 7) == LENGTH_DELIMITED
          && field >= FIRST_OPERATION
          && field < FIRST_OPERATION + FIELDS.length) {
        int index = field - FIRST_OPERATION;
        if (operations[index] == null) {
          operations[index] = new Operation();
        }
        operations[index].read(in, FIELDS[index]);
        operationField = field;
      } else {
        UnknownFields.skip(in, tag, REQUEST_DEPTH);
      }
    }
  }

  /**
   * The request, checked as {@link ClientMessages#request(io.frsm.client.proto.ClientRequest)}
   * checks it.
   *
   * @throws WireDecodeException if a field is missing or out of its range
   */
  OperationRequest request() throws WireDecodeException {
    long invokedAt = ApiValues.instanceField(invokedAtMicros, "invoked_at_micros", "request");
    Operation o = operationField == 0 ? null : operations[operationField - FIRST_OPERATION];
    ClientOperation op =
        switch (operationField) {
          case 10 -> new ClientOperation.Get(ClientMessages.key(o.key, "get"), o.quorum);
          case 11 ->
              new ClientOperation.Create(
                  ClientMessages.key(o.key, "create"),
                  o.value,
                  ClientMessages.hint(o.token, o.resend, "create"));
          case 12 ->
              new ClientOperation.Cas(
                  ClientMessages.key(o.key, "cas"),
                  ClientMessages.expected(
                      o.expected.set, o.expected.epoch, o.expected.timestamp, "cas.expected"),
                  o.value,
                  ClientMessages.hint(o.token, o.resend, "cas"));
          case 13 ->
              new ClientOperation.Delete(
                  ClientMessages.key(o.key, "delete"),
                  ClientMessages.expected(
                      o.expected.set, o.expected.epoch, o.expected.timestamp, "delete.expected"),
                  ClientMessages.hint(o.token, o.resend, "delete"));
          case 14 -> new ClientOperation.Fence(ClientMessages.key(o.key, "fence"));
          default -> throw new WireDecodeException("request without a (known) operation");
        };
    return new OperationRequest(op, invokedAt);
  }

  /** One operation message's fields as read (the union of every case's). */
  private static final class Operation {
    byte[] key = EMPTY;
    byte[] value = EMPTY;
    final VersionFields expected = new VersionFields();
    byte[] token = EMPTY;
    boolean resend;
    boolean quorum;

    void read(CodedInputStream in, byte[] types) throws IOException {
      int limit = in.pushLimit(in.readRawVarint32());
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        int field = tag >>> 3;
        byte type = field < types.length ? types[field] : NONE;
        if (type == NONE || (tag & 7) != wireType(type)) {
          UnknownFields.skip(in, tag, OPERATION_DEPTH);
          continue;
        }
        switch (type) {
          case KEY -> key = in.readByteArray();
          case VALUE -> value = in.readByteArray();
          case EXPECTED -> expected.read(in, VERSION_DEPTH);
          case TOKEN -> token = in.readByteArray();
          case RESEND -> resend = in.readBool();
          case QUORUM -> quorum = in.readBool();
          default -> throw new AssertionError(type);
        }
      }
      in.checkLastTagWas(0);
      in.popLimit(limit);
    }

    private static int wireType(byte type) {
      return type == RESEND || type == QUORUM ? VARINT : LENGTH_DELIMITED;
    }
  }
}
