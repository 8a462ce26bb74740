package io.frsm.server.ring;

import java.util.Objects;

/**
 * A cluster member as the ring sees it.
 *
 * @param nodeId unique, stable across restarts (it is part of every ballot the node issues)
 * @param rack failure domain; replicas of a range are spread over racks when there are enough
 */
public record NodeInfo(int nodeId, String host, int peerPort, int clientPort, String rack) {
  public NodeInfo {
    if (nodeId < 0) {
      throw new IllegalArgumentException("nodeId must be >= 0, was " + nodeId);
    }
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(rack, "rack");
    if (peerPort < 0 || peerPort > 65535 || clientPort < 0 || clientPort > 65535) {
      throw new IllegalArgumentException("ports must be in [0, 65535]");
    }
  }
}
