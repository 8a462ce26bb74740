package io.frsm.server.zk;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;

/**
 * A graceful stop's hand-over of the ranges the node holds (docs/PROTOCOL.md "A graceful stop hands
 * off"): the terms it held when the stop began, and a future that completes once none of their
 * hand-offs is under way any more — each shipped and released, declined, given up or ended another
 * way. {@link LeadershipStop} waits for it at most the stop wait, then releases what is left
 * plainly. Event thread only, but for the future.
 */
final class StopHandOver {
  private final Map<Integer, Long> heldTerms;
  private final CompletableFuture<Void> settled;

  /**
   * @param heldTerms per range the node held when the stop began, the term it held
   * @param settled completed once no hand-off of those ranges is under way
   */
  StopHandOver(Map<Integer, Long> heldTerms, CompletableFuture<Void> settled) {
    this.heldTerms = new TreeMap<>(heldTerms);
    this.settled = settled;
  }

  /** The ranges held when the stop began, with their terms. */
  Map<Integer, Long> heldTerms() {
    return java.util.Collections.unmodifiableMap(heldTerms);
  }

  /** After every event: completes the future once no range's hand-off is {@code underWay}. */
  void check(IntPredicate underWay) {
    if (settled.isDone()) {
      return;
    }
    for (int range : heldTerms.keySet()) {
      if (underWay.test(range)) {
        return;
      }
    }
    settled.complete(null);
  }

  /**
   * How the ranges held at the stop ended: handed off — the core shipped the term held at the stop
   * to a successor (and, from leader-only mode, reached its base) — or released plainly.
   *
   * @param shipped whether the core shipped a range's term
   */
  Outcome outcome(ShippedTerm shipped) {
    int handedOff = 0;
    for (Map.Entry<Integer, Long> e : heldTerms.entrySet()) {
      if (shipped.test(e.getKey(), e.getValue())) {
        handedOff++;
      }
    }
    Outcome o = new Outcome(handedOff, heldTerms.size() - handedOff);
    if (o.handedOff() + o.released() != heldTerms.size() || o.released() < 0) {
      throw new IllegalStateException("stop outcome does not add up: " + o + ", " + heldTerms);
    }
    return o;
  }

  /** Whether the core shipped {@code range}'s {@code term}. */
  @FunctionalInterface
  interface ShippedTerm {
    boolean test(int range, long term);
  }

  /** Ranges held at the stop, by how they were given up. */
  record Outcome(int handedOff, int released) {}
}
