package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A few {@link NodeCore}s wired together for unit tests: messages arrive in the order they were
 * sent, persists are done at once, every clock stands still until {@link #advance}. No faults but
 * the messages {@link #drop} names.
 */
final class CoreCluster {
  private static final long WALL_ORIGIN_MICROS = 1_700_000_000_000_000L;

  /** Says which messages to lose; none by default. */
  interface Drop {
    boolean drop(int from, int to, Message message);
  }

  /** A send some node carried out. */
  record Sent(int from, int to, Message message) {}

  private record Delivery(int node, Input input) {}

  private final NodeCore[] cores;
  private final List<TreeMap<Key, Cell>> stores = new ArrayList<>();
  private final ArrayDeque<Delivery> queue = new ArrayDeque<>();
  private final Map<Long, Outcome> replies = new HashMap<>();
  final List<Sent> sent = new ArrayList<>();

  /** An effect other than a persist, send or reply: {@code effect} emitted by {@code node}. */
  record Notice(int node, Effect effect) {}

  final List<Notice> noticed = new ArrayList<>();
  Drop drop = (from, to, message) -> false;
  private long monoNanos = 1_000_000_000L;
  private long nextRequestId;

  CoreCluster(int nodes, CoreConfig config) {
    cores = new NodeCore[nodes];
    for (int i = 0; i < nodes; i++) {
      TreeMap<Key, Cell> store = new TreeMap<>();
      stores.add(store);
      cores[i] = new NodeCore(i, 1, config, storeOver(store), bound -> bound / 2);
    }
  }

  private static CellStore storeOver(TreeMap<Key, Cell> store) {
    return new CellStore() {
      @Override
      public Cell get(Key key) {
        return store.get(key);
      }

      @Override
      public List<Key> keysInRange(long fromToken, long toToken, Key after, int limit) {
        return store.keySet().stream()
            .filter(k -> !RangeTerm.isReserved(k))
            .filter(k -> k.token() >= fromToken && k.token() <= toToken)
            .filter(k -> after == null || k.compareTo(after) > 0)
            .limit(limit)
            .toList();
      }
    };
  }

  Now now() {
    return new Now(WALL_ORIGIN_MICROS + monoNanos / 1000, monoNanos);
  }

  NodeCore core(int node) {
    return cores[node];
  }

  int size() {
    return cores.length;
  }

  /** Node {@code node}'s durable cell of {@code key}, or null. */
  Cell cell(int node, Key key) {
    return stores.get(node).get(key);
  }

  /** Feeds {@code input} to {@code node}, then delivers everything that follows from it. */
  void input(int node, Input input) {
    queue.add(new Delivery(node, input));
    drain();
  }

  /** Hands {@code op} to {@code node}; returns its request id (see {@link #outcome}). */
  long submit(int node, Operation op) {
    long id = nextRequestId++;
    input(node, new Input.ClientRequest(id, op, now().wallMicros()));
    return id;
  }

  /** The answer to request {@code id}, or null while it has none. */
  Outcome outcome(long id) {
    return replies.get(id);
  }

  /** Moves every clock on by {@code nanos}, then ticks every node. */
  void advance(long nanos) {
    monoNanos += nanos;
    for (int i = 0; i < cores.length; i++) {
      input(i, new Input.Tick());
    }
  }

  private void drain() {
    while (!queue.isEmpty()) {
      Delivery d = queue.poll();
      for (Effect e : cores[d.node()].step(now(), d.input())) {
        carryOut(d.node(), e);
      }
    }
  }

  private void carryOut(int node, Effect effect) {
    if (effect instanceof Effect.Persist p) {
      stores.get(node).merge(p.delta().key(), p.delta(), CellMerge::merge);
      queue.add(new Delivery(node, new Input.PersistDone(p.persistId())));
    } else if (effect instanceof Effect.Send s) {
      sent.add(new Sent(node, s.to(), s.message()));
      if (!drop.drop(node, s.to(), s.message())) {
        queue.add(new Delivery(s.to(), new Input.Receive(node, s.message())));
      }
    } else if (effect instanceof Effect.Reply r) {
      replies.put(r.requestId(), r.outcome());
    } else {
      noticed.add(new Notice(node, effect));
    }
  }
}
