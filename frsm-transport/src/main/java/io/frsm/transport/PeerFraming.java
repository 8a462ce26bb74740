package io.frsm.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import io.frsm.client.transport.EnvelopeHeader;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.WireDecodeException;

/**
 * A {@link PeerWireCodec} bound to one cluster: builds this node's envelopes and checks received
 * ones — protocol version and cluster id first ({@link EnvelopeHeader}), then the sender, and only
 * then the body. Thread-safe (immutable).
 */
final class PeerFraming<M> implements FrameDecoder.EnvelopeReader {
  private final PeerWireCodec<M> codec;
  private final EnvelopeHeader header;

  PeerFraming(String clusterId, PeerWireCodec<M> codec) {
    int version = codec.protocolVersion();
    if (version == 0) {
      throw new IllegalArgumentException(codec.protocolName() + ": protocol version 0 is invalid");
    }
    this.codec = codec;
    this.header = new EnvelopeHeader(clusterId, version);
  }

  PeerWireCodec<M> codec() {
    return codec;
  }

  MessageLite encode(int senderNodeId, M message) {
    return codec.encode(header.protocolVersion(), header.clusterId(), senderNodeId, message);
  }

  /**
   * The encoder of {@code senderNodeId}'s envelopes (what {@link #encode} gives, prepared once).
   */
  PeerWireCodec.Encoder<M> encoder(int senderNodeId) {
    return codec.encoder(header.protocolVersion(), header.clusterId(), senderNodeId);
  }

  @Override
  public boolean keepsNoShareOfFrames() {
    return codec.keepsNoShareOfFrames();
  }

  @Override
  public SenderFrame<M> read(CodedInputStream in) throws WireDecodeException {
    PeerWireCodec.Envelope<M> envelope = codec.parse(in);
    header.check(envelope.protocolVersion(), envelope.clusterId());
    int sender = envelope.senderNodeId();
    if (sender < 0) {
      throw new WireDecodeException(
          "sender node id " + Integer.toUnsignedString(sender) + " is above 2^31-1");
    }
    if (envelope.keepalive()) {
      return SenderFrame.keepalive(sender);
    }
    return SenderFrame.of(sender, envelope.body());
  }

  /** This node's keep-alive envelope, or null if the protocol has none. */
  MessageLite encodeKeepalive(int senderNodeId) {
    return codec.encodeKeepalive(header.protocolVersion(), header.clusterId(), senderNodeId);
  }
}
