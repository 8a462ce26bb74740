package io.frsm.transport;

import io.frsm.consensus.core.Message;

/**
 * Carries the consensus core's peer messages between nodes: what a node's driver calls for every
 * {@code Effect.Send}, and where received messages come from.
 *
 * <p>Delivery is best effort, as Paxos assumes: a message may be lost (peer down, connection
 * dropped, backlog full) but is never corrupted, duplicated by the transport, or reordered with
 * respect to other messages from the same sender to the same receiver while one connection lasts. A
 * message to this node itself goes through the network like any other; a driver may short-cut it.
 */
public interface PeerTransport extends AutoCloseable {

  /**
   * Queues {@code message} for {@code nodeId} and returns at once; never blocks. False if it was
   * dropped now: unknown node, too large for a frame, the transport is closed, or the node's
   * backlog is full (it is unreachable or not reading). A true result is no promise of delivery.
   */
  boolean send(int nodeId, Message message);

  /** Stops accepting and sending; connections close, queued messages are dropped. */
  @Override
  void close();

  /**
   * Receives peer messages. Called on a transport event loop thread, one message at a time per
   * connection and in arrival order: it must not block (hand the message to the node's queue).
   */
  @FunctionalInterface
  interface InboundHandler {
    void onMessage(int fromNodeId, Message message);
  }
}
