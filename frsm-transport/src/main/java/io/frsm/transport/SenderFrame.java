package io.frsm.transport;

import java.util.Objects;

/** One decoded peer frame: who sent it and the message. Holds no buffer. */
record SenderFrame<M>(int senderNodeId, M message) {
  SenderFrame {
    Objects.requireNonNull(message, "message");
  }
}
