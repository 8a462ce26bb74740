package io.frsm.server.zk;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Entry creations of left latches still unanswered ({@link RangeLatch#creationAnswered}): {@link
 * RangeLeadership#close} waits for them (up to {@link #CREATION_ANSWER_TIMEOUT}) so that the node
 * does not close its ZooKeeper client under them. Any thread.
 */
final class UnansweredCreations {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  /** Far above a creation's round trips in a healthy ensemble; bounds a stop without one. */
  private static final Duration CREATION_ANSWER_TIMEOUT = Duration.ofSeconds(2);

  private final Set<CompletableFuture<Void>> unanswered = ConcurrentHashMap.newKeySet();

  /** Keeps {@code creation} until it is answered. */
  void track(CompletableFuture<Void> creation) {
    if (!creation.isDone()) {
      unanswered.add(creation);
      creation.whenComplete((ignored, error) -> unanswered.remove(creation));
    }
  }

  /** Waits until every creation is answered, or the timeout passed (node {@code self} stops). */
  void await(int self) {
    try {
      CompletableFuture.allOf(unanswered.toArray(CompletableFuture[]::new))
          .get(CREATION_ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop anyway; the caller sees the interrupt
    } catch (Exception e) {
      // No answer in time (ZooKeeper unreachable): stop anyway.
      LOG.log(System.Logger.Level.DEBUG, "node " + self + ": latch entries still being created", e);
    }
  }
}
