package io.frsm.bench.crsm;

import io.frsm.lsm.LsmEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node of the baseline cluster: a replica of every shard, driven by one event-loop thread that
 * owns all of this node's {@link CrsmShardCore}s (so a shard's commands are sequenced by one core,
 * as in the paper's baseline), and the node's own {@link LsmEngine} holding the log.
 *
 * <p>Each loop turn drains every queued input (client requests, messages, persist completions),
 * steps the cores, ticks them when a tick is due, and ends with a {@link CrsmInput.Flush} so that
 * leaders propose what arrived during the turn. A persist's reply leaves only once the engine's
 * group commit synced it: its {@link CrsmInput.PersistDone} is queued from the write's future.
 *
 * <p>Thread-safe entry points: {@link #submit} and {@link #deliver}; everything else runs on the
 * loop thread.
 */
final class CrsmNode implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(CrsmNode.class.getName());

  private record ShardInput(int shard, CrsmInput input) {}

  /** Carries a message to another node's replica of {@code shard}. Must not block. */
  @FunctionalInterface
  interface Outbox {
    void send(int toNode, int shard, CrsmMessage message);
  }

  private final int nodeId;
  private final CrsmCluster cluster;
  private final Outbox outbox;
  private final LsmEngine engine;
  private final CrsmShardCore[] shards;
  private final LinkedBlockingQueue<ShardInput> inbox = new LinkedBlockingQueue<>();
  private final Map<Long, CompletableFuture<Result>> pending = new ConcurrentHashMap<>();
  private final AtomicLong requestIds = new AtomicLong();
  private final Thread loop;
  private volatile boolean running = true;

  CrsmNode(
      int nodeId,
      CrsmCluster cluster,
      Outbox outbox,
      LsmEngine engine,
      CrsmConfig config,
      int shardCount) {
    this.nodeId = nodeId;
    this.cluster = cluster;
    this.outbox = outbox;
    this.engine = engine;
    this.shards = new CrsmShardCore[shardCount];
    SplittableRandom random = new SplittableRandom(nodeId * 7919L + 1);
    for (int s = 0; s < shardCount; s++) {
      shards[s] = new CrsmShardCore(nodeId, 1, config, random.split());
    }
    this.loop = new Thread(this::runLoop, "crsm-node-" + nodeId);
    this.loop.setDaemon(true);
  }

  void start() {
    loop.start();
  }

  /** Hands a client command to this node's replica of {@code shard}. */
  CompletableFuture<Result> submit(int shard, Command command) {
    long id = requestIds.incrementAndGet();
    CompletableFuture<Result> f = new CompletableFuture<>();
    pending.put(id, f);
    if (!running) {
      pending.remove(id);
      f.complete(new Result.NotLeader());
      return f;
    }
    inbox.add(new ShardInput(shard, new CrsmInput.ClientRequest(id, command)));
    return f;
  }

  /** A message from replica {@code from} of {@code shard} (any thread; never blocks). */
  void deliver(int shard, int from, CrsmMessage message) {
    if (running) {
      inbox.add(new ShardInput(shard, new CrsmInput.Receive(from, message)));
    }
  }

  void campaign(int shard) {
    inbox.add(new ShardInput(shard, new CrsmInput.Campaign()));
  }

  private void runLoop() {
    long tickNanos = TimeUnit.MILLISECONDS.toNanos(CrsmCluster.TICK_MILLIS);
    long nextTick = System.nanoTime() + tickNanos;
    List<ShardInput> turn = new ArrayList<>();
    while (running) {
      try {
        ShardInput first =
            inbox.poll(Math.max(0, nextTick - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (first != null) {
          turn.add(first);
          inbox.drainTo(turn);
        }
        for (ShardInput in : turn) {
          apply(in.shard, shards[in.shard].step(in.input));
        }
        turn.clear();
        if (System.nanoTime() >= nextTick) {
          nextTick += tickNanos;
          for (int s = 0; s < shards.length; s++) {
            apply(s, shards[s].step(new CrsmInput.Tick()));
          }
        }
        for (int s = 0; s < shards.length; s++) {
          apply(s, shards[s].step(new CrsmInput.Flush()));
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | Error e) {
        LOG.log(System.Logger.Level.ERROR, "cRSM node " + nodeId + " event loop died", e);
        running = false;
        failPending();
        throw e;
      }
    }
  }

  private void apply(int shard, List<CrsmEffect> effects) {
    for (CrsmEffect e : effects) {
      if (e instanceof CrsmEffect.Send s) {
        if (s.to() == nodeId) {
          // As frsm's driver does: a message to this node skips the network.
          inbox.add(new ShardInput(shard, new CrsmInput.Receive(nodeId, s.message())));
        } else {
          outbox.send(s.to(), shard, s.message());
        }
      } else if (e instanceof CrsmEffect.Persist p) {
        persist(shard, p);
      } else if (e instanceof CrsmEffect.Reply r) {
        CompletableFuture<Result> f = pending.remove(r.requestId());
        if (f != null) {
          f.complete(r.result());
        }
      } else if (e instanceof CrsmEffect.Proposed p) {
        cluster.metrics().recordProposal(p.commands());
      } else if (e instanceof CrsmEffect.LeadershipChanged c) {
        cluster.leadershipChanged(shard, nodeId, c.leading());
      }
    }
  }

  private void persist(int shard, CrsmEffect.Persist p) {
    engine
        .write(LogRecordCodec.toCell(shard, p.record(), System.currentTimeMillis()))
        .whenComplete(
            (ok, error) -> {
              if (error != null) {
                // No ack leaves for a record that is not durable; the other replicas can still
                // form a quorum.
                LOG.log(
                    System.Logger.Level.ERROR, "cRSM log write failed on node " + nodeId, error);
              } else if (running) {
                inbox.add(new ShardInput(shard, new CrsmInput.PersistDone(p.persistId())));
              }
            });
  }

  private void failPending() {
    for (Long id : pending.keySet()) {
      CompletableFuture<Result> f = pending.remove(id);
      if (f != null) {
        f.complete(new Result.LeadershipLost());
      }
    }
  }

  /** Stops the loop; operations in flight end with an unknown outcome. Idempotent. */
  @Override
  public void close() {
    running = false;
    loop.interrupt();
    try {
      loop.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    failPending();
  }
}
