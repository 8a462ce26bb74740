package io.frsm.client.transport;

import static io.frsm.client.transport.ProtoFields.bytes;
import static io.frsm.client.transport.ProtoFields.messageField;
import static io.frsm.client.transport.ProtoFields.messageHeader;
import static io.frsm.client.transport.ProtoFields.string;
import static io.frsm.client.transport.ProtoFields.uint32;
import static io.frsm.client.transport.ProtoFields.versionField;

import com.google.protobuf.CodedOutputStream;
import io.frsm.api.Versioned;
import java.io.IOException;
import java.util.Optional;

/**
 * An operation response written as the {@code ClientEnvelope} (body field 31, {@code
 * ClientResponse}) that {@link ClientMessages#response(OperationResponse)} builds, field for field
 * in number order. A {@link Versioned}'s value is copied out once, when the envelope is made (the
 * API hands out copies only), and written from that copy.
 */
final class ResponseEnvelope extends DirectClientEnvelope {
  static final int BODY_FIELD = 31;

  private final OperationResponse response;

  /** The value of the response's {@code Versioned}, if it has one; null otherwise. */
  private final byte[] value;

  private final int resultSize;

  ResponseEnvelope(byte[] header, long requestId, OperationResponse response) {
    this(header, requestId, response, valueOf(response));
  }

  private ResponseEnvelope(
      byte[] header, long requestId, OperationResponse response, byte[] value) {
    this(header, requestId, response, value, resultSize(response, value));
  }

  private ResponseEnvelope(
      byte[] header, long requestId, OperationResponse response, byte[] value, int resultSize) {
    super(header, requestId, BODY_FIELD, messageField(resultField(response), resultSize));
    this.response = response;
    this.value = value;
    this.resultSize = resultSize;
  }

  @Override
  void writeBody(CodedOutputStream out) throws IOException {
    messageHeader(out, resultField(response), resultSize);
    if (response instanceof OperationResponse.Invalid i) {
      string(out, 1, i.reason());
      return;
    }
    if (response instanceof OperationResponse.Redirect r) {
      string(out, 1, r.leaderHost());
      uint32(out, 2, r.leaderPort());
      return;
    }
    ClientOutcome outcome = ((OperationResponse.Completed) response).outcome();
    if (outcome instanceof ClientOutcome.ReadResult r) {
      if (r.value().isPresent()) {
        versionedField(out, 1, r.value().get(), value);
      }
    } else if (outcome instanceof ClientOutcome.Written w) {
      versionField(out, 1, w.version());
    } else if (outcome instanceof ClientOutcome.Deleted d) {
      versionField(out, 1, d.version());
    } else if (outcome instanceof ClientOutcome.Exists e) {
      versionedField(out, 1, e.current(), value);
    } else if (outcome instanceof ClientOutcome.Mismatch m) {
      versionField(out, 1, m.expected());
      if (m.current().isPresent()) {
        versionedField(out, 2, m.current().get(), value);
      }
    } else if (outcome instanceof ClientOutcome.Unknown u) {
      string(out, 1, u.reason());
    } else if (outcome instanceof ClientOutcome.NotExecuted n) {
      string(out, 1, n.reason());
    }
  }

  /** The {@code ClientResponse} field number of the result's message (client.proto). */
  private static int resultField(OperationResponse response) {
    if (response instanceof OperationResponse.Invalid) {
      return 24;
    }
    if (response instanceof OperationResponse.Redirect) {
      return 25;
    }
    ClientOutcome outcome = ((OperationResponse.Completed) response).outcome();
    if (outcome instanceof ClientOutcome.ReadResult) {
      return 10;
    } else if (outcome instanceof ClientOutcome.Written) {
      return 11;
    } else if (outcome instanceof ClientOutcome.Deleted) {
      return 12;
    } else if (outcome instanceof ClientOutcome.Exists) {
      return 20;
    } else if (outcome instanceof ClientOutcome.Mismatch) {
      return 21;
    } else if (outcome instanceof ClientOutcome.Unknown) {
      return 22;
    } else if (outcome instanceof ClientOutcome.NotExecuted) {
      return 23;
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + outcome.getClass().getName() + ": add it to client.proto");
  }

  private static byte[] valueOf(OperationResponse response) {
    if (!(response instanceof OperationResponse.Completed completed)) {
      return null;
    }
    ClientOutcome outcome = completed.outcome();
    Optional<Versioned> versioned =
        outcome instanceof ClientOutcome.ReadResult r
            ? r.value()
            : outcome instanceof ClientOutcome.Exists e
                ? Optional.of(e.current())
                : outcome instanceof ClientOutcome.Mismatch m ? m.current() : Optional.empty();
    return versioned.map(Versioned::value).orElse(null);
  }

  private static int resultSize(OperationResponse response, byte[] value) {
    if (response instanceof OperationResponse.Invalid i) {
      return string(1, i.reason());
    }
    if (response instanceof OperationResponse.Redirect r) {
      return string(1, r.leaderHost()) + uint32(2, r.leaderPort());
    }
    ClientOutcome outcome = ((OperationResponse.Completed) response).outcome();
    if (outcome instanceof ClientOutcome.ReadResult r) {
      return r.value().isPresent() ? versionedField(1, r.value().get(), value) : 0;
    } else if (outcome instanceof ClientOutcome.Written w) {
      return versionField(1, w.version());
    } else if (outcome instanceof ClientOutcome.Deleted d) {
      return versionField(1, d.version());
    } else if (outcome instanceof ClientOutcome.Exists e) {
      return versionedField(1, e.current(), value);
    } else if (outcome instanceof ClientOutcome.Mismatch m) {
      return versionField(1, m.expected())
          + (m.current().isPresent() ? versionedField(2, m.current().get(), value) : 0);
    } else if (outcome instanceof ClientOutcome.Unknown u) {
      return string(1, u.reason());
    } else if (outcome instanceof ClientOutcome.NotExecuted n) {
      return string(1, n.reason());
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + outcome.getClass().getName() + ": add it to client.proto");
  }

  /** client.proto's {@code Versioned}: the value (from {@code value}, its copy) and the version. */
  private static int versionedField(int field, Versioned versioned, byte[] value) {
    return messageField(field, bytes(1, value) + versionField(2, versioned.version()));
  }

  private static void versionedField(
      CodedOutputStream out, int field, Versioned versioned, byte[] value) throws IOException {
    messageHeader(out, field, bytes(1, value) + versionField(2, versioned.version()));
    bytes(out, 1, value);
    versionField(out, 2, versioned.version());
  }
}
