package io.frsm.consensus.core;

import java.util.HashMap;
import java.util.Map;

/**
 * Which peers answer: a peer that left a request unanswered for longer than the hedge delay, and
 * has sent nothing since, is suspected, so partial rounds ({@code q} replicas) go to others first.
 * Any reply from the peer clears it. Only a preference for liveness and latency: quorums are never
 * counted differently.
 */
final class PeerResponsiveness {
  private final long suspectAfterNanos;

  /** Per peer: when the oldest request it has not answered since was sent (monotonic). */
  private final Map<Integer, Long> unansweredSince = new HashMap<>();

  PeerResponsiveness(long suspectAfterNanos) {
    this.suspectAfterNanos = suspectAfterNanos;
  }

  void requestSent(int peer, long monoNanos) {
    unansweredSince.putIfAbsent(peer, monoNanos);
  }

  void heardFrom(int peer) {
    unansweredSince.remove(peer);
  }

  boolean suspected(int peer, long monoNanos) {
    Long since = unansweredSince.get(peer);
    return since != null && monoNanos - since >= suspectAfterNanos;
  }
}
