package io.frsm.client.transport;

import com.google.protobuf.MessageLite;
import io.netty.channel.Channel;

/**
 * A queued outbound frame that wants to know its fate. Untracked frames are queued as the bare
 * envelope. Callbacks run on the connection's event loop.
 */
public interface TrackedFrame {
  MessageLite envelope();

  /** Called just before the write; false skips the frame (for example, its caller gave up). */
  boolean beforeWrite(Channel channel);

  /** The frame was dropped unwritten and never will be written. */
  void discarded(String reason);
}
