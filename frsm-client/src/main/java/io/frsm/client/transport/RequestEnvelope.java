package io.frsm.client.transport;

import static io.frsm.client.transport.ProtoFields.bool;
import static io.frsm.client.transport.ProtoFields.bytes;
import static io.frsm.client.transport.ProtoFields.messageField;
import static io.frsm.client.transport.ProtoFields.messageHeader;
import static io.frsm.client.transport.ProtoFields.uint64;
import static io.frsm.client.transport.ProtoFields.versionField;

import com.google.protobuf.CodedOutputStream;
import java.io.IOException;

/**
 * An operation request written as the {@code ClientEnvelope} (body field 30, {@code ClientRequest})
 * that {@link ClientMessages#request(OperationRequest)} builds, field for field in number order:
 * the key, the value and the token are written from the records' own arrays, which are never
 * written after they were made.
 */
final class RequestEnvelope extends DirectClientEnvelope {
  static final int BODY_FIELD = 30;

  private final OperationRequest request;
  private final int operationSize;

  RequestEnvelope(byte[] header, long requestId, OperationRequest request) {
    this(header, requestId, request, operationSize(request.operation()));
  }

  private RequestEnvelope(
      byte[] header, long requestId, OperationRequest request, int operationSize) {
    super(
        header,
        requestId,
        BODY_FIELD,
        uint64(1, request.invokedAtMicros())
            + messageField(operationField(request.operation()), operationSize));
    this.request = request;
    this.operationSize = operationSize;
  }

  @Override
  void writeBody(CodedOutputStream out) throws IOException {
    uint64(out, 1, request.invokedAtMicros());
    ClientOperation op = request.operation();
    messageHeader(out, operationField(op), operationSize);
    bytes(out, 1, op.key().bytesUnsafe());
    if (op instanceof ClientOperation.Get get) {
      bool(out, 2, get.quorum());
    } else if (op instanceof ClientOperation.Create c) {
      bytes(out, 2, c.value());
      hint(out, 3, c.hint());
    } else if (op instanceof ClientOperation.Cas c) {
      versionField(out, 2, c.expected());
      bytes(out, 3, c.value());
      hint(out, 4, c.hint());
    } else if (op instanceof ClientOperation.Delete d) {
      versionField(out, 2, d.expected());
      hint(out, 3, d.hint());
    }
  }

  /** The {@code ClientRequest} field number of the operation's message (client.proto). */
  private static int operationField(ClientOperation op) {
    if (op instanceof ClientOperation.Get) {
      return 10;
    } else if (op instanceof ClientOperation.Create) {
      return 11;
    } else if (op instanceof ClientOperation.Cas) {
      return 12;
    } else if (op instanceof ClientOperation.Delete) {
      return 13;
    } else if (op instanceof ClientOperation.Fence) {
      return 14;
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + op.getClass().getName() + ": add it to client.proto");
  }

  private static int operationSize(ClientOperation op) {
    int key = bytes(1, op.key().bytesUnsafe());
    if (op instanceof ClientOperation.Get get) {
      return key + bool(2, get.quorum());
    } else if (op instanceof ClientOperation.Create c) {
      return key + bytes(2, c.value()) + hint(3, c.hint());
    } else if (op instanceof ClientOperation.Cas c) {
      return key + versionField(2, c.expected()) + bytes(3, c.value()) + hint(4, c.hint());
    } else if (op instanceof ClientOperation.Delete d) {
      return key + versionField(2, d.expected()) + hint(3, d.hint());
    } else if (op instanceof ClientOperation.Fence) {
      return key;
    }
    throw new IllegalArgumentException(
        "no wire mapping for " + op.getClass().getName() + ": add it to client.proto");
  }

  /** An idempotency hint: its token in field {@code field}, the resend flag in the next. */
  private static int hint(int field, ClientOperation.Hint hint) {
    return hint == null ? 0 : bytes(field, hint.token()) + bool(field + 1, hint.resend());
  }

  private static void hint(CodedOutputStream out, int field, ClientOperation.Hint hint)
      throws IOException {
    if (hint != null) {
      bytes(out, field, hint.token());
      bool(out, field + 1, hint.resend());
    }
  }
}
