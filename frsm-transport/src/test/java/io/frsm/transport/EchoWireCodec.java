package io.frsm.transport;

import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.transport.testproto.EchoEnvelope;

/** A second {@link PeerWireCodec}, carrying strings, with a protocol version of its choosing. */
final class EchoWireCodec extends ProtobufPeerWireCodec<EchoEnvelope, String> {
  private final int version;

  EchoWireCodec(int version) {
    super(
        new EnvelopeParser<>("echo", EchoEnvelope::parseFrom),
        EchoEnvelope::getProtocolVersion,
        EchoEnvelope::getClusterId,
        EchoEnvelope::getSenderNodeId);
    this.version = version;
  }

  @Override
  public String protocolName() {
    return "echo";
  }

  @Override
  public int protocolVersion() {
    return version;
  }

  @Override
  public EchoEnvelope encode(
      int protocolVersion, String clusterId, int senderNodeId, String message) {
    return EchoEnvelope.newBuilder()
        .setProtocolVersion(protocolVersion)
        .setClusterId(clusterId)
        .setSenderNodeId(senderNodeId)
        .setText(message)
        .build();
  }

  @Override
  protected String bodyOf(EchoEnvelope envelope) throws WireDecodeException {
    if (!envelope.hasText()) {
      throw new WireDecodeException("echo envelope without a body");
    }
    return envelope.getText();
  }
}
