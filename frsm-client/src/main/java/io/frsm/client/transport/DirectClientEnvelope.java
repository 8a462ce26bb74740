package io.frsm.client.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.client.proto.ClientEnvelope;
import java.io.IOException;
import java.io.OutputStream;

/**
 * One operation's request or response as a {@code ClientEnvelope} that is written, not built: the
 * header's bytes (fields 1-2, the same for every envelope of a codec), the request id, and the body
 * a subclass writes. To the transport — the size checks, the queues, {@link FrameEncoder} — it is a
 * {@link MessageLite} like any other; its bytes are those of the generated envelope ({@link
 * ClientCodec#encodeRequest}, {@link ClientCodec#encodeResponse}), which the differential tests
 * check. Holds the immutable request or response until the event loop writes it: one object per
 * frame instead of a builder and a message per protobuf level and a wrapper per bytes field.
 */
abstract class DirectClientEnvelope implements MessageLite {
  private final byte[] header;
  private final long requestId;
  private final int bodyField;
  private final int bodySize;
  private final int size;

  /**
   * @param header the serialized fields 1-2 of every envelope of this codec (never written to)
   */
  DirectClientEnvelope(byte[] header, long requestId, int bodyField, int bodySize) {
    this.header = header;
    this.requestId = requestId;
    this.bodyField = bodyField;
    this.bodySize = bodySize;
    this.size =
        header.length
            + ProtoFields.uint64(3, requestId)
            + ProtoFields.messageField(bodyField, bodySize);
  }

  /** Writes the body message's content: exactly the {@code bodySize} bytes given. */
  abstract void writeBody(CodedOutputStream output) throws IOException;

  @Override
  public final int getSerializedSize() {
    return size;
  }

  @Override
  public final void writeTo(CodedOutputStream output) throws IOException {
    output.writeRawBytes(header);
    ProtoFields.uint64(output, 3, requestId);
    ProtoFields.messageHeader(output, bodyField, bodySize);
    writeBody(output);
  }

  @Override
  public final byte[] toByteArray() {
    byte[] bytes = new byte[size];
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("writing to an array cannot fail", e);
    }
    out.checkNoSpaceLeft();
    return bytes;
  }

  @Override
  public final ByteString toByteString() {
    return UnsafeByteOperations.unsafeWrap(toByteArray()); // a fresh array, shared with no one
  }

  @Override
  public final void writeTo(OutputStream output) throws IOException {
    CodedOutputStream out = CodedOutputStream.newInstance(output);
    writeTo(out);
    out.flush();
  }

  @Override
  public final void writeDelimitedTo(OutputStream output) throws IOException {
    CodedOutputStream out = CodedOutputStream.newInstance(output);
    out.writeUInt32NoTag(size);
    writeTo(out);
    out.flush();
  }

  @Override
  public final Parser<ClientEnvelope> getParserForType() {
    return ClientEnvelope.parser();
  }

  @Override
  public final ClientEnvelope.Builder newBuilderForType() {
    return ClientEnvelope.newBuilder();
  }

  /** The generated envelope's builder, parsed from this envelope's bytes. */
  @Override
  public final ClientEnvelope.Builder toBuilder() {
    try {
      return ClientEnvelope.parseFrom(toByteArray()).toBuilder();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("an envelope written here does not parse", e);
    }
  }

  @Override
  public final ClientEnvelope getDefaultInstanceForType() {
    return ClientEnvelope.getDefaultInstance();
  }

  @Override
  public final boolean isInitialized() {
    return true; // proto3: no required fields
  }

  @Override
  public String toString() {
    return "client envelope (" + size + " bytes, request " + requestId + ")";
  }
}
