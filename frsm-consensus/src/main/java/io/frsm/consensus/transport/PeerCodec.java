package io.frsm.consensus.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.transport.proto.PeerEnvelope;
import java.io.IOException;

/** Builds and reads {@code PeerEnvelope}s of one cluster. Thread-safe (immutable). */
final class PeerCodec implements FrameDecoder.EnvelopeReader {
  private final EnvelopeHeader header;

  PeerCodec(String clusterId) {
    this.header = new EnvelopeHeader(clusterId);
  }

  PeerEnvelope encode(int senderNodeId, Message message) {
    PeerEnvelope.Builder envelope =
        PeerEnvelope.newBuilder()
            .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
            .setClusterId(header.clusterId())
            .setSenderNodeId(senderNodeId);
    return PeerMessages.toBody(message, envelope).build();
  }

  @Override
  public PeerFrame read(CodedInputStream in) throws WireDecodeException {
    PeerEnvelope envelope;
    try {
      envelope = PeerEnvelope.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException("unparsable peer envelope: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable peer envelope: " + e.getMessage(), e);
    }
    return decode(envelope);
  }

  PeerFrame decode(PeerEnvelope envelope) throws WireDecodeException {
    header.check(envelope.getProtocolVersion(), envelope.getClusterIdBytes());
    int sender = envelope.getSenderNodeId();
    if (sender < 0) {
      throw new WireDecodeException(
          "sender node id " + Integer.toUnsignedString(sender) + " is above 2^31-1");
    }
    return new PeerFrame(sender, PeerMessages.fromEnvelope(envelope));
  }
}
