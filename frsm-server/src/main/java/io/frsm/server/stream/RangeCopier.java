package io.frsm.server.stream;

import java.util.concurrent.CompletableFuture;

/** Copies the SSTables that hold a token range from a peer into this node's engine. */
public interface RangeCopier {
  CompletableFuture<Void> copy(int sourceNodeId, long fromTokenExclusive, long toTokenInclusive);

  static RangeCopier none() {
    return (node, from, to) -> CompletableFuture.completedFuture(null);
  }
}
