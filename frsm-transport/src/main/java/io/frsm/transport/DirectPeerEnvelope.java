package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.client.transport.ProtoFields;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;
import java.io.IOException;
import java.io.OutputStream;

/**
 * One peer message as a {@code PeerEnvelope} that is written, not built: the header's bytes (the
 * same for every message of this node) followed by the body {@link PeerBodyWriter} writes. To the
 * transport — the size check in {@code FramedPeerTransport.send}, the queue, {@code FrameEncoder} —
 * it is a {@link MessageLite} like any other; its bytes are those of the generated envelope.
 *
 * <p>Holds the core's immutable message until the event loop writes it: one object per message sent
 * instead of a builder and a message per protobuf level. Only reading methods are offered; a
 * builder is one of the parsed envelope's.
 */
final class DirectPeerEnvelope implements MessageLite {
  private final byte[] header;
  private final Message message;
  private final int field;
  private final int bodySize;
  private final int size;

  /**
   * @param header the serialized header fields 1–3 of every envelope this node sends (never written
   *     to)
   */
  DirectPeerEnvelope(byte[] header, Message message) {
    this.header = header;
    this.message = message;
    this.field = PeerBodyWriter.fieldNumber(message);
    this.bodySize = PeerBodyWriter.size(message);
    this.size = header.length + ProtoFields.messageField(field, bodySize);
  }

  @Override
  public int getSerializedSize() {
    return size;
  }

  @Override
  public void writeTo(CodedOutputStream output) throws IOException {
    output.writeRawBytes(header);
    ProtoFields.messageHeader(output, field, bodySize);
    PeerBodyWriter.write(output, message);
  }

  @Override
  public byte[] toByteArray() {
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
  public ByteString toByteString() {
    return UnsafeByteOperations.unsafeWrap(toByteArray()); // a fresh array, shared with no one
  }

  @Override
  public void writeTo(OutputStream output) throws IOException {
    CodedOutputStream out = CodedOutputStream.newInstance(output);
    writeTo(out);
    out.flush();
  }

  @Override
  public void writeDelimitedTo(OutputStream output) throws IOException {
    CodedOutputStream out = CodedOutputStream.newInstance(output);
    out.writeUInt32NoTag(size);
    writeTo(out);
    out.flush();
  }

  @Override
  public Parser<PeerEnvelope> getParserForType() {
    return PeerEnvelope.parser();
  }

  @Override
  public PeerEnvelope.Builder newBuilderForType() {
    return PeerEnvelope.newBuilder();
  }

  /** The generated envelope's builder, parsed from this envelope's bytes. */
  @Override
  public PeerEnvelope.Builder toBuilder() {
    try {
      return PeerEnvelope.parseFrom(toByteArray()).toBuilder();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("an envelope written here does not parse", e);
    }
  }

  @Override
  public PeerEnvelope getDefaultInstanceForType() {
    return PeerEnvelope.getDefaultInstance();
  }

  @Override
  public boolean isInitialized() {
    return true; // proto3: no required fields
  }

  @Override
  public String toString() {
    return "peer envelope (" + size + " bytes) of " + message;
  }
}
