package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator (leader) side of one node: a queue of client operations per key, one {@link Run}
 * active per key at a time (never pipelined: one value per ballot per instance depends on it), and
 * keys independent of each other. Everything a run needs beyond its own state comes from the {@link
 * RunContext} it is built with; the coordinator only queues, starts and drives runs.
 *
 * <p>Not thread-safe: driven by one {@link NodeCore}, one input at a time.
 */
final class Coordinator {
  private final RunContext context;

  /** Insertion-ordered so ticks visit keys in a reproducible order. */
  private final Map<Key, KeyOperations> keys = new LinkedHashMap<>();

  /** {@link #tick}'s copy of the entries, empty between ticks. */
  private final List<Map.Entry<Key, KeyOperations>> tickScratch = new ArrayList<>();

  private static final class KeyOperations {
    final ArrayDeque<Input.ClientRequest> waiting = new ArrayDeque<>();
    Run active;
  }

  Coordinator(RunContext context) {
    this.context = context;
  }

  /** Queues {@code request} behind the key's other operations; starts it if none runs. */
  void submit(Now now, Input.ClientRequest request, List<Effect> out) {
    KeyOperations ops = keys.computeIfAbsent(request.operation().key(), k -> new KeyOperations());
    ops.waiting.add(request);
    if (ops.active == null) {
      advance(now, request.operation().key(), ops, out);
    }
  }

  /** A reply to a round of the key's active run (a late one to a finished operation is dropped). */
  void onReply(Now now, int from, Message.Reply reply, List<Effect> out) {
    KeyOperations ops = keys.get(reply.key());
    if (ops == null || ops.active == null) {
      return; // a late reply to a finished operation
    }
    ops.active.onReply(now, from, reply, out);
    if (ops.active.done()) {
      advance(now, reply.key(), ops, out);
    }
  }

  /**
   * The local cell of {@code key} caught up with a value this node learned chosen: a get waiting
   * for that is served now.
   */
  void localCaughtUp(Now now, Key key, List<Effect> out) {
    KeyOperations ops = keys.get(key);
    if (ops != null && ops.active instanceof GetRun get) {
      get.localCaughtUp(now, out);
      if (get.done()) {
        advance(now, key, ops, out);
      }
    }
  }

  void tick(Now now, List<Effect> out) {
    // A tick may end a key's operations (advance forgets the key), so it walks a copy of the
    // entries, in the map's order; the copy's list is kept between ticks, as a tick comes every
    // few milliseconds whether or not anything runs (issue 26: allocation per operation). So a tick
    // must never start inside another: a run's tick only adds effects to `out`, which the driver
    // carries out after the step, so nothing below calls back into tick.
    assert tickScratch.isEmpty() : "Coordinator.tick re-entered: " + tickScratch.size() + " keys";
    for (Map.Entry<Key, KeyOperations> entry : keys.entrySet()) {
      tickScratch.add(entry);
    }
    try {
      for (int i = 0; i < tickScratch.size(); i++) {
        Map.Entry<Key, KeyOperations> entry = tickScratch.get(i);
        KeyOperations ops = entry.getValue();
        ops.active.tick(now, out);
        if (ops.active.done()) {
          advance(now, entry.getKey(), ops, out);
        }
      }
    } finally {
      tickScratch.clear();
    }
  }

  /** Starts the key's next queued operation; forgets the key when none is left. */
  private void advance(Now now, Key key, KeyOperations ops, List<Effect> out) {
    while (ops.active == null || ops.active.done()) {
      Input.ClientRequest next = ops.waiting.poll();
      if (next == null) {
        keys.remove(key);
        return;
      }
      ops.active = newRun(next);
      ops.active.start(now, out);
    }
  }

  private Run newRun(Input.ClientRequest request) {
    Operation op = request.operation();
    if (op instanceof Operation.Get) {
      return new GetRun(context, request);
    } else if (op instanceof Operation.Create) {
      return new CreateRun(context, request);
    } else if (op instanceof Operation.Fence) {
      return new FenceRun(context, request);
    }
    return new CasRun(context, request);
  }

  /** Keys with a client operation queued or running. */
  int activeOperations() {
    return keys.size();
  }
}
