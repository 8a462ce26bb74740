package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;
import java.io.IOException;

/**
 * frsm's peer protocol as a {@link PeerWireCodec}: the consensus core's {@link Message}s in {@code
 * PeerEnvelope}s (peer.proto, docs/formats/wire.md), mapped by {@link PeerMessages}. Stateless.
 */
final class FrsmPeerWireCodec implements PeerWireCodec<Message> {
  static final FrsmPeerWireCodec INSTANCE = new FrsmPeerWireCodec();

  private FrsmPeerWireCodec() {}

  @Override
  public String protocolName() {
    return "frsm peer";
  }

  @Override
  public int protocolVersion() {
    return WireFormat.PROTOCOL_VERSION;
  }

  @Override
  public PeerEnvelope encode(
      int protocolVersion, String clusterId, int senderNodeId, Message message) {
    PeerEnvelope.Builder envelope =
        PeerEnvelope.newBuilder()
            .setProtocolVersion(protocolVersion)
            .setClusterId(clusterId)
            .setSenderNodeId(senderNodeId);
    return PeerMessages.toBody(message, envelope).build();
  }

  @Override
  public Envelope<Message> parse(CodedInputStream in) throws WireDecodeException {
    try {
      return new Parsed(PeerEnvelope.parseFrom(in));
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException("unparsable peer envelope: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable peer envelope: " + e.getMessage(), e);
    }
  }

  private record Parsed(PeerEnvelope envelope) implements Envelope<Message> {
    @Override
    public int protocolVersion() {
      return envelope.getProtocolVersion();
    }

    @Override
    public ByteString clusterIdUtf8() {
      return envelope.getClusterIdBytes();
    }

    @Override
    public int senderNodeId() {
      return envelope.getSenderNodeId();
    }

    @Override
    public Message body() throws WireDecodeException {
      return PeerMessages.fromEnvelope(envelope);
    }
  }
}
