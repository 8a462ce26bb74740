package io.frsm.transport;

import java.util.Objects;

/**
 * One decoded peer frame: who sent it and the message, or a keep-alive (no message). Holds no
 * buffer.
 */
record SenderFrame<M>(int senderNodeId, M message) {
  /** A keep-alive from {@code senderNodeId}: checked like any frame, handed to no one. */
  static <M> SenderFrame<M> keepalive(int senderNodeId) {
    return new SenderFrame<>(senderNodeId, null);
  }

  /** A message frame; {@code message} is never null. */
  static <M> SenderFrame<M> of(int senderNodeId, M message) {
    return new SenderFrame<>(senderNodeId, Objects.requireNonNull(message, "message"));
  }

  boolean isKeepalive() {
    return message == null;
  }
}
