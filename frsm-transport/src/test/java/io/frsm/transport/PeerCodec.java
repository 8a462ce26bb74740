package io.frsm.transport;

import com.google.protobuf.CodedInputStream;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;

/**
 * Test helper: frsm's peer framing for one cluster, as {@link NettyPeerTransport} uses it, with the
 * envelope typed so tests can tamper with it.
 */
final class PeerCodec implements FrameDecoder.EnvelopeReader {
  private final PeerFraming<Message> framing;

  PeerCodec(String clusterId) {
    this.framing = new PeerFraming<>(clusterId, FrsmPeerWireCodec.INSTANCE);
  }

  PeerEnvelope encode(int senderNodeId, Message message) {
    return (PeerEnvelope) framing.encode(senderNodeId, message);
  }

  @Override
  public SenderFrame<Message> read(CodedInputStream in) throws WireDecodeException {
    return framing.read(in);
  }
}
