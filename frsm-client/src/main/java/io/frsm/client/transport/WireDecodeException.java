package io.frsm.client.transport;

/**
 * A frame that is not a valid message of the protocol: unparsable protobuf, a missing or
 * out-of-range field, an unknown body, or an envelope with the wrong protocol version or cluster
 * id. The transport closes the connection that sent it; nothing reaches the node.
 */
public final class WireDecodeException extends Exception {
  public WireDecodeException(String message) {
    super(message);
  }

  public WireDecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
