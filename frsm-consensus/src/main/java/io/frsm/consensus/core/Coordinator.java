package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator (leader) side of one node: a queue of client operations per key, one {@link Run}
 * active per key at a time (never pipelined: one value per ballot per instance depends on it), and
 * keys independent of each other. Also holds the warm state, in memory only.
 */
final class Coordinator {
  final int nodeId;
  final int boot;
  final CoreConfig config;
  final CellStore store;
  final RandomSource random;
  final LeaseState leases;
  final LeaderReads leaderReads;
  final CoreCounters counters = new CoreCounters();
  final PeerResponsiveness peers;

  /** Insertion-ordered so ticks visit keys in a reproducible order. */
  private final Map<Key, KeyOperations> keys = new LinkedHashMap<>();

  private final LinkedHashMap<Key, Warm> warm;

  /** Deletes whose phase 1 still waits for some replicas, then their purge. */
  final DeleteCompletion deletes;

  private long nextRoundSequence;

  /**
   * A key whose last round in this incarnation got {@code q} acks: its ballot and the value it
   * chose. Lost with the process, which only costs a prepare.
   */
  record Warm(Ballot ballot, AcceptedValue chosen) {}

  private static final class KeyOperations {
    final ArrayDeque<Input.ClientRequest> waiting = new ArrayDeque<>();
    Run active;
  }

  Coordinator(int nodeId, int boot, CoreConfig config, CellStore store, RandomSource random) {
    this.nodeId = nodeId;
    this.boot = boot;
    this.config = config;
    this.store = store;
    this.random = random;
    this.leases = new LeaseState(this);
    this.leaderReads =
        new LeaderReads(
            leases,
            store,
            config.modes().leaderOnlyReads(),
            config.broken(Sabotage.SERVE_READ_WITHOUT_LEASE_CHECK));
    this.deletes = new DeleteCompletion(this);
    this.peers = new PeerResponsiveness(config.hedgeNanos());
    int max = config.warmKeysMax();
    this.warm =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Warm> eldest) {
            return size() > max;
          }
        };
  }

  void submit(Now now, Input.ClientRequest request, List<Effect> out) {
    KeyOperations ops = keys.computeIfAbsent(request.operation().key(), k -> new KeyOperations());
    ops.waiting.add(request);
    if (ops.active == null) {
      advance(now, request.operation().key(), ops, out);
    }
  }

  void onReply(Now now, int from, Message.Reply reply, List<Effect> out) {
    peers.heardFrom(from);
    if (deletes.onReply(now, from, reply, out)) {
      return;
    }
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
    deletes.tick(now, out);
    for (var entry : new ArrayList<>(keys.entrySet())) {
      KeyOperations ops = entry.getValue();
      ops.active.tick(now, out);
      if (ops.active.done()) {
        advance(now, entry.getKey(), ops, out);
      }
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
      return new GetRun(this, request);
    } else if (op instanceof Operation.Create) {
      return new CreateRun(this, request);
    } else if (op instanceof Operation.Fence) {
      return new FenceRun(this, request);
    }
    return new CasRun(this, request);
  }

  /**
   * Whether this warm CAS must prepare anyway ({@link CoreConfig.Modes#forcedColdCasShare}). Draws
   * from the random source only when the share is set, so default runs replay unchanged.
   */
  boolean forceCold() {
    double share = config.modes().forcedColdCasShare();
    return share > 0 && random.nextLong(FORCE_COLD_SCALE) < Math.round(share * FORCE_COLD_SCALE);
  }

  private static final long FORCE_COLD_SCALE = 1_000_000;

  RoundId newRoundId() {
    return new RoundId(nodeId, boot, nextRoundSequence++);
  }

  Warm warm(Key key) {
    return warm.get(key);
  }

  void rememberWarm(Key key, Ballot ballot, AcceptedValue chosen) {
    warm.put(key, new Warm(ballot, chosen));
  }

  void forgetWarm(Key key) {
    warm.remove(key);
  }

  int activeOperations() {
    return keys.size();
  }
}
