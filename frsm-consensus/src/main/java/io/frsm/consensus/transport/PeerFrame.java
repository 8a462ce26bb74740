package io.frsm.consensus.transport;

import io.frsm.consensus.core.Message;
import java.util.Objects;

/** One decoded peer frame: who sent it and the message. Holds no buffer. */
record PeerFrame(int senderNodeId, Message message) {
  PeerFrame {
    Objects.requireNonNull(message, "message");
  }
}
