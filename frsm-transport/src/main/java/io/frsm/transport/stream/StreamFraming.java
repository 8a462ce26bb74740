package io.frsm.transport.stream;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.client.transport.EnvelopeHeader;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.transport.proto.StreamEnvelope;
import java.io.IOException;

/**
 * Reads stream envelopes of one cluster: protocol version and cluster id first, then the sender,
 * then that a body is set. What a body's fields may hold is each side's check (the source's {@code
 * StreamRequests}, the receiver's manifest and chunk checks). Immutable.
 */
public final class StreamFraming implements FrameDecoder.EnvelopeReader {
  private final EnvelopeHeader header;

  public StreamFraming(String clusterId) {
    this.header = new EnvelopeHeader(clusterId, StreamWire.PROTOCOL_VERSION);
  }

  /**
   * A decoder for a stream connection's frames, each begun frame held to {@code limits} while it is
   * incomplete: its declared length reserved from their port's and the node's budgets, its rest due
   * within their partial-frame timeout; either refusal closes the connection, counted and logged by
   * {@code limits} (docs/formats/streaming.md "Frames and the node's budget"). Null {@code limits}:
   * only the frame limit ({@link StreamWire#MAX_FRAME_BYTES}) holds — for tests on in-JVM channels.
   */
  public FrameDecoder decoder(Runnable onRefused, InboundLimits limits) {
    return new FrameDecoder(StreamWire.MAX_FRAME_BYTES, this, onRefused, limits);
  }

  @Override
  public StreamFrame read(CodedInputStream in) throws WireDecodeException {
    StreamEnvelope envelope;
    try {
      envelope = StreamEnvelope.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException("stream envelope does not parse: " + e.getMessage());
    } catch (IOException e) {
      throw new WireDecodeException("stream envelope unreadable: " + e.getMessage());
    }
    header.check(envelope.getProtocolVersion(), envelope.getClusterId());
    int sender = envelope.getSenderNodeId();
    if (sender < 0) {
      throw new WireDecodeException(
          "sender node id " + Integer.toUnsignedString(sender) + " is above 2^31-1");
    }
    if (envelope.getBodyCase() == StreamEnvelope.BodyCase.BODY_NOT_SET) {
      throw new WireDecodeException("stream envelope without a body");
    }
    return new StreamFrame(sender, envelope);
  }
}
