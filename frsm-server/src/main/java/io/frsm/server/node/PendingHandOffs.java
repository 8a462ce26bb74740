package io.frsm.server.node;

import io.frsm.consensus.core.HandOffShipment;
import io.frsm.server.zk.HandOffDeclined;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

/**
 * The hand-offs asked of one core ({@code Input.HandOff}) whose drain has not shipped yet ({@code
 * Effect.HandOffShipped}, or declined: {@code Effect.HandOffDeclined}; docs/PROTOCOL.md "Hand-off
 * instead of a scan"). A hand-off asked twice gets one answer; those the core never answers (it
 * stopped) are answered null — no shipment, the agent releases plainly. Thread-safe: asked on any
 * thread, answered on the core's.
 */
final class PendingHandOffs {
  private record Drain(int range, long term) {}

  private final Map<Drain, CompletableFuture<HandOffShipment>> open = new ConcurrentHashMap<>();

  /** Who hears how many keys an open drain began with. */
  private final Map<Drain, IntConsumer> begunListeners = new ConcurrentHashMap<>();

  /**
   * The shipment of {@code range}'s term {@code term}, once the core drained it; {@code begun}
   * hears the drain's key count when it begins (not if it is declined).
   */
  CompletableFuture<HandOffShipment> handOff(
      int range, long term, IntConsumer begun, PendingReleases.Asker asker) {
    Drain key = new Drain(range, term);
    CompletableFuture<HandOffShipment> answer = new CompletableFuture<>();
    CompletableFuture<HandOffShipment> earlier = open.putIfAbsent(key, answer);
    if (earlier != null) {
      return earlier;
    }
    begunListeners.put(key, begun);
    // Forgotten once answered by anyone (the agent's bound included): nothing accumulates.
    answer.whenComplete(
        (s, e) -> {
          open.remove(key, answer);
          begunListeners.remove(key, begun);
        });
    if (!asker.ask(range, term)) {
      answer.complete(null);
    }
    return answer;
  }

  /** The core began the drain of {@code range}'s term {@code term} with {@code keys} keys. */
  void begun(int range, long term, int keys) {
    IntConsumer listener = begunListeners.remove(new Drain(range, term));
    if (listener != null) {
      listener.accept(keys);
    }
  }

  /** The core shipped {@code s}. */
  void shipped(HandOffShipment s) {
    CompletableFuture<HandOffShipment> answer = open.remove(new Drain(s.range(), s.term()));
    if (answer != null) {
      answer.complete(s);
    }
  }

  /** The core declined the drain of {@code range}'s term {@code term}: nothing stopped. */
  void declined(int range, long term, int writtenKeys) {
    CompletableFuture<HandOffShipment> answer = open.remove(new Drain(range, term));
    if (answer != null) {
      answer.completeExceptionally(new HandOffDeclined(range, term, writtenKeys));
    }
  }

  /** The core stopped: no open hand-off ships. */
  void failAll() {
    open.values().forEach(a -> a.complete(null));
    open.clear();
    begunListeners.clear();
  }
}
