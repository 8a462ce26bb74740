package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.transport.testproto.EchoEnvelope;
import java.io.IOException;

/** A second {@link PeerWireCodec}, carrying strings, with a protocol version of its choosing. */
final class EchoWireCodec implements PeerWireCodec<String> {
  private final int version;

  EchoWireCodec(int version) {
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
  public Envelope<String> parse(CodedInputStream in) throws WireDecodeException {
    EchoEnvelope envelope;
    try {
      envelope = EchoEnvelope.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException("unparsable echo envelope: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable echo envelope: " + e.getMessage(), e);
    }
    return new Envelope<>() {
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
      public String body() throws WireDecodeException {
        if (!envelope.hasText()) {
          throw new WireDecodeException("echo envelope without a body");
        }
        return envelope.getText();
      }
    };
  }
}
