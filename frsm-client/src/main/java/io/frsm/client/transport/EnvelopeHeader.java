package io.frsm.client.transport;

/**
 * The per-frame header check: the protocol version and the cluster id must equal the receiver's.
 * Checked before the body is looked at, so a frame from another cluster or another protocol version
 * changes nothing.
 */
public final class EnvelopeHeader {
  private final String clusterId;
  private final int protocolVersion;

  /** frsm's own protocols (peer and client): {@link WireFormat#PROTOCOL_VERSION}. */
  public EnvelopeHeader(String clusterId) {
    this(clusterId, WireFormat.PROTOCOL_VERSION);
  }

  public EnvelopeHeader(String clusterId, int protocolVersion) {
    this.clusterId = WireFormat.requireValidClusterId(clusterId);
    this.protocolVersion = protocolVersion;
  }

  public String clusterId() {
    return clusterId;
  }

  public int protocolVersion() {
    return protocolVersion;
  }

  /**
   * Checks a received header. {@code receivedClusterId} is the envelope's string field as protobuf
   * parsed it (decoded from UTF-8 while parsing, whatever is asked later): compared as it is, since
   * asking protobuf for the field's bytes would encode it again — a string and an array per frame.
   */
  public void check(int protocolVersion, String receivedClusterId) throws WireDecodeException {
    if (protocolVersion != this.protocolVersion) {
      throw new WireDecodeException(
          "protocol version "
              + Integer.toUnsignedString(protocolVersion)
              + ", this node speaks "
              + this.protocolVersion);
    }
    if (!clusterId.equals(receivedClusterId)) {
      throw new WireDecodeException(
          "cluster id '" + receivedClusterId + "', this node belongs to '" + clusterId + "'");
    }
  }
}
