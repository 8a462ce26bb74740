package io.frsm.server.stream;

import java.util.concurrent.CompletableFuture;

/**
 * Bulk copy of one token range's data to this node from a node that holds it: the hook a membership
 * change calls for a range's incoming learner before the range is settled at that version
 * (docs/PROTOCOL.md "Membership changes", "The server's side").
 *
 * <p>The copy is an optimization, never a safety step: the settle that follows reads every key a
 * quorum of the range's voters lists until its newest value sits on a quorum of them, whatever the
 * learner holds. A copier that copies nothing ({@link #none()}) is therefore correct, only slower;
 * one that fails makes the change retry or stop, nothing else. A copier must only ever merge what
 * it copies into the learner's cells ({@code CellMerge}, a join): a copied cell can be older than
 * the learner's, never replace it.
 *
 * <p>Token bounds follow {@link io.frsm.server.ring.TokenRange}: {@code (fromTokenExclusive,
 * toTokenInclusive]}, wrapping past {@link Long#MAX_VALUE} when {@code fromTokenExclusive >=
 * toTokenInclusive} (equal bounds mean the whole ring).
 */
public interface RangeCopier {
  /**
   * Copies the tokens {@code (fromTokenExclusive, toTokenInclusive]} from node {@code sourceNodeId}
   * into this node's store. Completes when the copied data is durable here; exceptionally when the
   * copy failed (the caller may retry it).
   */
  CompletableFuture<Void> copy(int sourceNodeId, long fromTokenExclusive, long toTokenInclusive);

  /**
   * Whether a successful {@link #copy} placed the range's data here. False for {@link #none()}: the
   * learner step's settle must then bring the learner its keys (docs/PROTOCOL.md "Copy").
   */
  default boolean placesData() {
    return true;
  }

  /** Copies nothing: the settle alone brings the learner every key. */
  static RangeCopier none() {
    return new RangeCopier() {
      @Override
      public CompletableFuture<Void> copy(int source, long from, long to) {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public boolean placesData() {
        return false;
      }
    };
  }
}
