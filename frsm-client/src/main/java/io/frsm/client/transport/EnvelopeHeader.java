package io.frsm.client.transport;

import com.google.protobuf.ByteString;

/**
 * The per-frame header check: the protocol version and the cluster id must equal the receiver's.
 * Checked before the body is looked at, so a frame from another cluster or another protocol version
 * changes nothing.
 */
public final class EnvelopeHeader {
  private final String clusterId;
  private final ByteString clusterIdUtf8;
  private final int protocolVersion;

  /** frsm's own protocols (peer and client): {@link WireFormat#PROTOCOL_VERSION}. */
  public EnvelopeHeader(String clusterId) {
    this(clusterId, WireFormat.PROTOCOL_VERSION);
  }

  public EnvelopeHeader(String clusterId, int protocolVersion) {
    this.clusterId = WireFormat.requireValidClusterId(clusterId);
    this.clusterIdUtf8 = ByteString.copyFromUtf8(clusterId);
    this.protocolVersion = protocolVersion;
  }

  public String clusterId() {
    return clusterId;
  }

  public int protocolVersion() {
    return protocolVersion;
  }

  /** REQUIRES: {@code receivedClusterId} is the raw bytes (no UTF-8 decoding per frame). */
  public void check(int protocolVersion, ByteString receivedClusterId) throws WireDecodeException {
    if (protocolVersion != this.protocolVersion) {
      throw new WireDecodeException(
          "protocol version "
              + Integer.toUnsignedString(protocolVersion)
              + ", this node speaks "
              + this.protocolVersion);
    }
    if (!clusterIdUtf8.equals(receivedClusterId)) {
      throw new WireDecodeException(
          "cluster id '"
              + receivedClusterId.toStringUtf8()
              + "', this node belongs to '"
              + clusterId
              + "'");
    }
  }
}
