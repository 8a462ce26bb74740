package io.frsm.client.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.client.proto.ClientEnvelope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code ClientEnvelope}'s top level read without the generated classes: the header's fields and
 * the body fields' bytes, which {@link RequestBodyReader} or {@link ResponseBodyReader} then read
 * into the records. Reads as the generated parser does: fields in any order, the last of a repeated
 * header field wins, the cluster id must be UTF-8, unknown fields and known numbers with another
 * wire type are skipped by {@link CodedInputStream#skipField} (as protobuf's unknown-field set
 * reads them at this level).
 *
 * <p>Only a frame with exactly one body field is read directly. Anything else — several body fields
 * (a oneof merged across cases and repeats, never sent by frsm) or no body — is handed to the
 * generated parser whole, as {@link #toGenerated()}: the header as read and the body fields in
 * their order, which is all the generated envelope keeps of the frame that matters (its unknown
 * fields were checked here, at the same depth).
 *
 * <p>The body's bytes are a view of the frame when the frame's stream allows aliasing; they are
 * read before {@code FrameDecoder.EnvelopeReader#read} returns, and the records copy what they
 * keep.
 */
final class ClientEnvelopeReader {
  private static final int FIRST_BODY = 30;
  private static final int LAST_BODY = 37;

  private int protocolVersion;
  private ByteString clusterId = ByteString.EMPTY;
  private long requestId;

  /** The first body field read, or 0. */
  private int bodyField;

  private ByteString body;

  /** Every body field in order, kept once there is a second one (never sent by frsm). */
  private List<Integer> fields;

  private List<ByteString> bodies;

  private ClientEnvelopeReader() {}

  /**
   * Reads one envelope's header and body bytes from {@code in}.
   *
   * @throws InvalidProtocolBufferException if the bytes are not a client envelope
   */
  static ClientEnvelopeReader read(CodedInputStream in) throws IOException {
    ClientEnvelopeReader envelope = new ClientEnvelopeReader();
    envelope.readFields(in);
    return envelope;
  }

  private void readFields(CodedInputStream in) throws IOException {
    while (true) {
      int tag = in.readTag();
      switch (tag) {
        case 0 -> {
          return;
        }
        case 1 << 3 -> protocolVersion = in.readUInt32();
        case 2 << 3 | 2 -> {
          ByteString id = in.readBytes();
          if (!id.isValidUtf8()) {
            throw new InvalidProtocolBufferException(
                "Protocol message had invalid UTF-8."); // protobuf's text
          }
          clusterId = id;
        }
        case 3 << 3 -> requestId = in.readUInt64();
        default -> {
          int field = tag >>> 3;
          if ((tag & 7) == 2 && field >= FIRST_BODY && field <= LAST_BODY) {
            bodyField(field, in.readBytes());
          } else if (!in.skipField(tag)) {
            return; // an end-group tag ends the envelope where protobuf's parser stops too
          }
        }
      }
    }
  }

  private void bodyField(int field, ByteString bytes) {
    if (bodyField == 0) {
      bodyField = field;
      body = bytes;
      return;
    }
    if (fields == null) {
      fields = new ArrayList<>();
      bodies = new ArrayList<>();
      fields.add(bodyField);
      bodies.add(body);
    }
    fields.add(field);
    bodies.add(bytes);
  }

  int protocolVersion() {
    return protocolVersion;
  }

  /** The cluster id's bytes, valid UTF-8. */
  ByteString clusterId() {
    return clusterId;
  }

  long requestId() {
    return requestId;
  }

  /** Whether the frame has one body field, {@code field}: the case read directly. */
  boolean onlyBody(int field) {
    return bodyField == field && fields == null;
  }

  /** The one body field's bytes ({@link #onlyBody}). */
  ByteString body() {
    return body;
  }

  /**
   * The envelope as the generated parser reads it: the header as read, then the body fields parsed
   * by the generated classes in their order (each at the depth it had in the frame).
   *
   * @throws InvalidProtocolBufferException if a body field does not parse
   */
  ClientEnvelope toGenerated() throws IOException {
    ClientEnvelope.Builder envelope =
        ClientEnvelope.newBuilder()
            .setProtocolVersion(protocolVersion)
            .setClusterIdBytes(clusterId)
            .setRequestId(requestId);
    if (bodyField == 0) {
      return envelope.build();
    }
    List<Integer> f = fields == null ? List.of(bodyField) : fields;
    List<ByteString> b = bodies == null ? List.of(body) : bodies;
    int size = 0;
    for (int i = 0; i < f.size(); i++) {
      size += CodedOutputStream.computeBytesSize(f.get(i), b.get(i));
    }
    byte[] bodyFields = new byte[size];
    CodedOutputStream out = CodedOutputStream.newInstance(bodyFields);
    for (int i = 0; i < f.size(); i++) {
      out.writeBytes(f.get(i), b.get(i));
    }
    out.checkNoSpaceLeft();
    return envelope.mergeFrom(bodyFields).build();
  }
}
