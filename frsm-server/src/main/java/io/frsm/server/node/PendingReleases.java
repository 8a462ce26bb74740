package io.frsm.server.node;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lease hand-overs asked of one core ({@code Input.ReleaseLease}) and not yet answered by its
 * {@code Effect.LeaseReleased}. A release asked twice gets one answer; releases the core never
 * answered (it stopped or failed) are answered "not clean", so the successor waits out the lease.
 * Thread-safe: asked on any thread, answered on the core's.
 */
final class PendingReleases {
  private record Release(int range, long term) {}

  private final Map<Release, CompletableFuture<Boolean>> open = new ConcurrentHashMap<>();

  /** Asks the core to hand the term over; returns false if the core no longer takes inputs. */
  interface Asker {
    boolean ask(int range, long term);
  }

  /**
   * The answer to releasing {@code range}'s term {@code term}: whether the term may be marked
   * released. The first call asks the core through {@code asker}; a repeated call gets the same
   * future.
   */
  CompletableFuture<Boolean> release(int range, long term, Asker asker) {
    Release key = new Release(range, term);
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    CompletableFuture<Boolean> earlier = open.putIfAbsent(key, answer);
    if (earlier != null) {
      return earlier;
    }
    if (!asker.ask(range, term)) {
      open.remove(key, answer);
      answer.complete(false);
    }
    return answer;
  }

  /** The core answered the release of {@code range}'s term {@code term}. */
  void answered(int range, long term, boolean clean) {
    CompletableFuture<Boolean> answer = open.remove(new Release(range, term));
    if (answer != null) {
      answer.complete(clean);
    }
  }

  /** The core stopped: every open release is answered "not clean". */
  void failAll() {
    open.values().forEach(a -> a.complete(false));
    open.clear();
  }
}
