package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.PeerEnvelope;
import io.frsm.transport.proto.PeerKeepalive;

/**
 * frsm's peer protocol as a {@link PeerWireCodec}: the consensus core's {@link Message}s in {@code
 * PeerEnvelope}s (peer.proto, docs/formats/wire.md). The node writes and reads them without the
 * generated classes ({@link DirectPeerEnvelope}, {@link PeerEnvelopeReader}), byte for byte and
 * check for check what the generated classes and {@link PeerMessages} do; {@link #encode} builds
 * them with the generated classes (tests, and the reference the direct path is tested against).
 * Thread-safe.
 */
final class FrsmPeerWireCodec implements PeerWireCodec<Message> {
  static final FrsmPeerWireCodec INSTANCE = new FrsmPeerWireCodec();

  private final ClusterIds clusterIds = new ClusterIds();

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

  /** Reads the envelope without the generated classes ({@link PeerEnvelopeReader}). */
  @Override
  public Envelope<Message> parse(CodedInputStream in) throws WireDecodeException {
    return PeerEnvelopeReader.read(in, clusterIds);
  }

  /**
   * True: the reader copies every key, value and token into the core's records; nothing it returns
   * shares the frame.
   */
  @Override
  public boolean keepsNoShareOfFrames() {
    return true;
  }

  /**
   * The cluster id of a frame as text: the one seen last is kept, so a node's frames (all with its
   * cluster's id) do not decode a string each. Thread-safe: the pair is immutable and published
   * whole; a race only decodes once more.
   */
  static final class ClusterIds {
    private record Known(ByteString bytes, String text) {}

    private volatile Known known = new Known(ByteString.EMPTY, "");

    /** {@code bytes}, valid UTF-8, as a string. */
    String text(ByteString bytes) {
      Known k = known;
      if (k.bytes.equals(bytes)) {
        return k.text;
      }
      String text = bytes.toStringUtf8();
      // A copy: bytes may be a view of a frame's array, which is reused.
      known = new Known(ByteString.copyFrom(bytes.toByteArray()), text);
      return text;
    }
  }
}
