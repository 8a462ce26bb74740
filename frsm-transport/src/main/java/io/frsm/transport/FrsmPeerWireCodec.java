package io.frsm.transport;

import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;
import io.frsm.transport.proto.PeerKeepalive;

/**
 * frsm's peer protocol as a {@link PeerWireCodec}: the consensus core's {@link Message}s in {@code
 * PeerEnvelope}s (peer.proto, docs/formats/wire.md), mapped by {@link PeerMessages}. Stateless.
 */
final class FrsmPeerWireCodec extends ProtobufPeerWireCodec<PeerEnvelope, Message> {
  static final FrsmPeerWireCodec INSTANCE = new FrsmPeerWireCodec();

  private FrsmPeerWireCodec() {
    super(
        new EnvelopeParser<>("peer", PeerEnvelope::parseFrom),
        PeerEnvelope::getProtocolVersion,
        PeerEnvelope::getClusterId,
        PeerEnvelope::getSenderNodeId);
  }

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

  /**
   * Writes each message without building its protobuf objects ({@link DirectPeerEnvelope}): the
   * header serialized once here by the generated class, so its bytes are the envelope's.
   */
  @Override
  public Encoder<Message> encoder(int protocolVersion, String clusterId, int senderNodeId) {
    byte[] header =
        PeerEnvelope.newBuilder()
            .setProtocolVersion(protocolVersion)
            .setClusterId(clusterId)
            .setSenderNodeId(senderNodeId)
            .build()
            .toByteArray();
    return message -> new DirectPeerEnvelope(header, message);
  }

  @Override
  public PeerEnvelope encodeKeepalive(int protocolVersion, String clusterId, int senderNodeId) {
    return PeerEnvelope.newBuilder()
        .setProtocolVersion(protocolVersion)
        .setClusterId(clusterId)
        .setSenderNodeId(senderNodeId)
        .setKeepalive(PeerKeepalive.getDefaultInstance())
        .build();
  }

  /**
   * True: {@link PeerMessages} copies every key, value and token into the core's records ({@code
   * WireValues.key}, {@code WireValues.acceptedValueOrNone}); no protobuf message outlives the
   * decoding.
   */
  @Override
  public boolean keepsNoShareOfFrames() {
    return true;
  }

  @Override
  protected boolean isKeepalive(PeerEnvelope envelope) {
    return envelope.hasKeepalive();
  }

  @Override
  protected Message bodyOf(PeerEnvelope envelope) throws WireDecodeException {
    return PeerMessages.fromEnvelope(envelope);
  }
}
