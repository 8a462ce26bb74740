package io.frsm.client.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads a {@code ClientResponse} (client.proto) straight into an {@link OperationResponse}, with
 * the checks and error texts {@link ClientMessages#response(io.frsm.client.proto.ClientResponse)}
 * makes on the generated classes (the same helpers) — without building them. Reads as protobuf's
 * parser does, as {@link RequestBodyReader} describes: numbers and strings overwritten by a repeat,
 * messages merged, the result a oneof whose last case wins merged with that case's earlier
 * occurrences, unknown fields skipped, strings required to be UTF-8. A value is copied once out of
 * the frame into the {@link Versioned} that keeps it ({@link Versioned#copyOf}).
 */
final class ResponseBodyReader {
  // Wire types (protobuf encoding).
  private static final int VARINT = 0;
  private static final int LENGTH_DELIMITED = 2;

  // What a result's field is.
  private static final byte NONE = 0;
  private static final byte VERSION = 1; // a Version message
  private static final byte VERSIONED = 2; // a Versioned message
  private static final byte TEXT = 3; // a string: a reason, or a redirect's host
  private static final byte PORT = 4; // uint32

  /** [result index][field number]: the field's meaning, NONE if unknown. */
  private static final byte[][] FIELDS = {
    /* 10 ReadResult */ {NONE, VERSIONED},
    /* 11 Written */ {NONE, VERSION},
    /* 12 Deleted */ {NONE, VERSION},
    /* 20 KeyExists */ {NONE, VERSIONED},
    /* 21 CasMismatch */ {NONE, VERSION, VERSIONED},
    /* 22 OutcomeUnknown */ {NONE, TEXT},
    /* 23 NotExecuted */ {NONE, TEXT},
    /* 24 InvalidRequest */ {NONE, TEXT},
    /* 25 Redirect */ {NONE, TEXT, PORT},
  };

  // The depths protobuf's parser counts (the envelope's fields are at 0).
  private static final int RESPONSE_DEPTH = 1;
  private static final int RESULT_DEPTH = 2;

  /** The result field read last, as an index into {@link #FIELDS}; -1 when none. */
  private int result = -1;

  /** Each case's fields as read, made when the case appears (one, from frsm). */
  private final Result[] results = new Result[FIELDS.length];

  private ResponseBodyReader() {}

  /**
   * Reads the body's fields, to the end of {@code in}.
   *
   * @throws IOException if they do not parse (protobuf's own exceptions)
   */
  static ResponseBodyReader read(CodedInputStream in) throws IOException {
    ResponseBodyReader r = new ResponseBodyReader();
    r.readFields(in);
    return r;
  }

  /** The index of result field {@code field} of {@code ClientResponse}, or -1. */
  private static int index(int field) {
    if (field >= 10 && field <= 12) {
      return field - 10;
    }
    if (field >= 20 && field <= 25) {
      return field - 17;
    }
    return -1;
  }

  private void readFields(CodedInputStream in) throws IOException {
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        return;
      }
      int index = index(tag >>> 3);
      if (index < 0 || (tag & 7) != LENGTH_DELIMITED) {
        UnknownFields.skip(in, tag, RESPONSE_DEPTH);
        continue;
      }
      if (results[index] == null) {
        results[index] = new Result();
      }
      results[index].read(in, FIELDS[index]);
      result = index;
    }
  }

  /**
   * The response, checked as {@link ClientMessages#response(io.frsm.client.proto.ClientResponse)}
   * checks it.
   *
   * @throws WireDecodeException if a field is missing or out of its range
   */
  OperationResponse response() throws WireDecodeException {
    if (result < 0) {
      throw new WireDecodeException("response without a (known) result");
    }
    Result r = results[result];
    return switch (result) {
      case 0 -> completed(new ClientOutcome.ReadResult(r.versionedOrAbsent("read.value")));
      case 1 -> completed(new ClientOutcome.Written(r.version("written")));
      case 2 -> completed(new ClientOutcome.Deleted(r.version("deleted")));
      case 3 -> completed(new ClientOutcome.Exists(r.versioned("key_exists.current")));
      case 4 ->
          completed(
              new ClientOutcome.Mismatch(
                  r.version("cas_mismatch.expected"), r.versionedOrAbsent("cas_mismatch.current")));
      case 5 -> completed(new ClientOutcome.Unknown(r.text));
      case 6 -> completed(new ClientOutcome.NotExecuted(r.text));
      case 7 -> new OperationResponse.Invalid(r.text);
      default -> ClientMessages.redirect(r.text, r.port);
    };
  }

  private static OperationResponse completed(ClientOutcome outcome) {
    return new OperationResponse.Completed(outcome);
  }

  /** One result message's fields as read (the union of every case's). */
  private static final class Result {
    final VersionFields version = new VersionFields();
    boolean versionedSet;
    ByteString value = ByteString.EMPTY;
    final VersionFields versionedVersion = new VersionFields();
    String text = "";
    int port;

    void read(CodedInputStream in, byte[] types) throws IOException {
      int limit = in.pushLimit(in.readRawVarint32());
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        int field = tag >>> 3;
        byte type = field < types.length ? types[field] : NONE;
        if (type == NONE || (tag & 7) != (type == PORT ? VARINT : LENGTH_DELIMITED)) {
          UnknownFields.skip(in, tag, RESULT_DEPTH);
          continue;
        }
        switch (type) {
          case VERSION -> version.read(in, RESULT_DEPTH + 1);
          case VERSIONED -> readVersioned(in);
          case TEXT -> text = in.readStringRequireUtf8();
          case PORT -> port = in.readUInt32();
          default -> throw new AssertionError(type);
        }
      }
      in.checkLastTagWas(0);
      in.popLimit(limit);
    }

    private void readVersioned(CodedInputStream in) throws IOException {
      versionedSet = true;
      int limit = in.pushLimit(in.readRawVarint32());
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        switch (tag) {
            // A view of the frame where the stream aliases: copied once into the Versioned.
          case 1 << 3 | LENGTH_DELIMITED -> value = in.readBytes();
          case 2 << 3 | LENGTH_DELIMITED -> versionedVersion.read(in, RESULT_DEPTH + 2);
          default -> UnknownFields.skip(in, tag, RESULT_DEPTH + 1);
        }
      }
      in.checkLastTagWas(0);
      in.popLimit(limit);
    }

    Version version(String where) throws WireDecodeException {
      return ApiValues.version(version.set, version.epoch, version.timestamp, where);
    }

    Versioned versioned(String where) throws WireDecodeException {
      return ApiValues.versioned(
          versionedSet,
          value,
          versionedVersion.set,
          versionedVersion.epoch,
          versionedVersion.timestamp,
          where);
    }

    Optional<Versioned> versionedOrAbsent(String where) throws WireDecodeException {
      return versionedSet ? Optional.of(versioned(where)) : Optional.empty();
    }
  }
}
