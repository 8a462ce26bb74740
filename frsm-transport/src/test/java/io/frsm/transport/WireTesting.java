package io.frsm.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.FrameEncoder;
import io.frsm.client.transport.OperationRequest;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Shared helpers of the transport tests. */
final class WireTesting {
  private WireTesting() {}

  static final String CLUSTER = "test-cluster";

  /** The framed bytes of an envelope, as {@link FrameEncoder} writes them. */
  static byte[] frame(MessageLite envelope) {
    byte[] body = envelope.toByteArray();
    return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
  }

  static CodedInputStream body(MessageLite envelope) {
    return CodedInputStream.newInstance(envelope.toByteArray());
  }

  /** Operation records hold arrays (identity equals), so compare them by content. */
  static String describe(OperationRequest request) {
    ClientOperation op = request.operation();
    String value =
        op instanceof ClientOperation.Create c
            ? HexFormat.of().formatHex(c.value())
            : op instanceof ClientOperation.Cas c ? HexFormat.of().formatHex(c.value()) : "";
    String expected =
        op instanceof ClientOperation.Cas c
            ? c.expected().toString()
            : op instanceof ClientOperation.Delete d ? d.expected().toString() : "";
    ClientOperation.Hint hint = op.hint();
    return op.getClass().getSimpleName()
        + (hint == null
            ? ""
            : " hint " + HexFormat.of().formatHex(hint.token()) + (hint.resend() ? " resend" : ""))
        + " "
        + op.key()
        + " "
        + expected
        + " "
        + value
        + " τ="
        + request.invokedAtMicros();
  }
}
