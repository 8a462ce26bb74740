package io.frsm.server.node;

import io.frsm.client.RequestLimits;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ShardRouting;
import io.frsm.lsm.LsmEngine;
import io.frsm.store.CachingCellStore;
import io.frsm.transport.PeerTransport;
import io.netty.util.concurrent.EventExecutor;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * A node's consensus cores: {@code consensus.coreThreads} {@link CoreDriver}s, each a {@link
 * io.frsm.consensus.core.NodeCore} on its own thread (or on the transport event loop {@code s mod
 * loops} when {@code hostLoops} is not empty) owning every {@code n}-th range of the ring ({@link
 * ShardRouting}, docs/PROTOCOL.md "Core shards"). Per-key Paxos needs no order between keys, so a
 * node's keys can be served by as many threads as it has CPUs to give; the ranges are the unit
 * because a range's term, lease and scan span its keys.
 *
 * <p>Every input goes to the shard owning its key or range, so a shard never sees another's state:
 * the drivers share the node id, boot, clock cache, engine and transport, nothing else. They fail
 * together: the first shard that stops on a fatal error stops the others (the node's durable state
 * can no longer be vouched for), then the node is told once. A peer message is checked ({@link
 * PeerAdmission}) before it reaches a shard.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
final class CoreShards {
  private static final System.Logger LOG = System.getLogger(CoreShards.class.getName());

  private final ShardRouting routing;
  private final CoreDriver[] drivers;
  private final AtomicBoolean failed = new AtomicBoolean();
  private final PeerAdmission admission;

  /** Peer messages {@link #admission} refused: dropped before any core saw them. */
  private final LongAdder refusedPeerMessages = new LongAdder();

  private final RateLimitedLog refusedPeerMessageLog =
      new RateLimitedLog(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  CoreShards(
      int nodeId,
      int boot,
      CoreConfig config,
      int shards,
      CachingCellStore store,
      LsmEngine engine,
      PeerTransport transport,
      long tickNanos,
      PeerMessageCounts peerMessages,
      List<EventExecutor> hostLoops,
      Consumer<Throwable> onFatal,
      java.time.Duration stepDownAfter,
      RangeQuorums quorums,
      AcceptorSilence silence) {
    this.routing = new ShardRouting(config.placement(), shards);
    this.admission =
        new PeerAdmission(
            new RequestLimits(
                engine.config().maxKeySizeBytes(), engine.config().maxValueSizeBytes()),
            config.placement().rangeCount());
    this.drivers = new CoreDriver[shards];
    // The node's settle pace is split over its shards (each paces the settles of its ranges).
    CoreConfig perShard =
        config.settleKeysPerSecond() == 0 || shards == 1
            ? config
            : config.toBuilder()
                .settleKeysPerSecond(Math.max(1, config.settleKeysPerSecond() / shards))
                .build();
    Consumer<Throwable> together = error -> failTogether(nodeId, error, onFatal);
    for (int s = 0; s < shards; s++) {
      drivers[s] =
          new CoreDriver(
              nodeId,
              routing,
              s,
              boot,
              perShard,
              store,
              engine,
              transport,
              tickNanos,
              peerMessages,
              hostLoops.isEmpty() ? null : hostLoops.get(s % hostLoops.size()),
              together,
              stepDownAfter,
              quorums,
              silence);
    }
  }

  /** Stops every shard after the first fatal error (off the failing loop: stop joins threads). */
  private void failTogether(int nodeId, Throwable error, Consumer<Throwable> onFatal) {
    if (!failed.compareAndSet(false, true)) {
      return;
    }
    if (drivers.length > 1) {
      Thread stopper =
          new Thread(
              () -> {
                for (CoreDriver d : drivers) {
                  d.stop(); // the failed one already ended; stop is then a no-op join
                }
              },
              "frsm-node-" + nodeId + "-shard-stopper");
      stopper.setDaemon(true);
      stopper.start();
    }
    onFatal.accept(error);
  }

  int shards() {
    return drivers.length;
  }

  void start() {
    for (CoreDriver d : drivers) {
      d.start();
    }
  }

  /** {@link CoreDriver#submit} on the shard owning the operation's key. */
  CompletableFuture<CoreAnswer> submit(Operation operation, long invokedAtMicros) {
    return drivers[routing.ofKey(operation.key())].submit(operation, invokedAtMicros);
  }

  /** A coordination input, to the shard owning its range. */
  void input(Input input) {
    drivers[routing.of(input)].input(input);
  }

  /**
   * Installs {@code next} on every shard (PlacementChanged goes to each): completes once all run
   * with its version or a newer one; exceptionally if a shard refused it or stopped.
   */
  CompletableFuture<Void> install(Placement next) {
    CompletableFuture<?>[] each = new CompletableFuture<?>[drivers.length];
    for (int s = 0; s < drivers.length; s++) {
      each[s] = drivers[s].install(next);
    }
    return CompletableFuture.allOf(each);
  }

  /** {@link CoreDriver#settle} on the shard owning the range. */
  CompletableFuture<Boolean> settle(int range, long ringVersion) {
    return drivers[routing.ofRange(range)].settle(range, ringVersion);
  }

  /** The ring version every shard runs with (the oldest of theirs). */
  long ringVersion() {
    return Arrays.stream(drivers).mapToLong(d -> d.ring().installed()).min().orElseThrow();
  }

  /** Where a shard's RingBehind goes (a newer version than any this node has was seen). */
  void onRingBehind(java.util.function.LongConsumer listener) {
    for (CoreDriver d : drivers) {
      d.ring().onBehind(listener);
    }
  }

  /** {@link CoreDriver#handOff} on the shard owning the range. */
  CompletableFuture<io.frsm.consensus.core.HandOffShipment> handOff(
      int range, long term, int maxKeys, java.util.function.IntConsumer begun) {
    return drivers[routing.ofRange(range)].handOff(range, term, maxKeys, begun);
  }

  /** {@link CoreDriver#releaseLease} on the shard owning the range. */
  CompletableFuture<Boolean> releaseLease(int range, long term) {
    return drivers[routing.ofRange(range)].releaseLease(range, term);
  }

  /**
   * A peer message, to the shard owning its key (any thread; never blocks). One {@link
   * PeerAdmission} refuses is dropped, counted and logged (at most once a second): Paxos tolerates
   * a lost message, and none of it reaches a core.
   */
  void receive(int from, Message message) {
    String refusal = admission.refusal(message);
    if (refusal != null) {
      refusedPeerMessages.increment();
      refusedPeerMessageLog.log("dropped a message of node " + from + ": " + refusal, null);
      return;
    }
    drivers[routing.ofKey(message.key())].receive(from, message);
  }

  /** Peer messages dropped because the node or a core refused a field. */
  long refusedPeerMessages() {
    return refusedPeerMessages.sum() + sum(CoreDriver::refusedPeerMessages);
  }

  /** Client operations answered with an error because a core failed on them. */
  long operationErrors() {
    return sum(CoreDriver::operationErrors);
  }

  /** The shards' counters summed, each as of its last tick. */
  CoreStats stats() {
    CoreStats total = CoreStats.ZERO;
    for (CoreDriver d : drivers) {
      total = total.plus(d.stats());
    }
    return total;
  }

  /** The shards' range scans and hand-offs summed, each as of its last tick. */
  HandOffTally handOffTally() {
    HandOffTally total = HandOffTally.ZERO;
    for (CoreDriver d : drivers) {
      total = total.plus(d.handOffTally());
    }
    return total;
  }

  long callerThreadReads() {
    return sum(CoreDriver::callerThreadReads);
  }

  /** Inputs queued for all shards. */
  int queueDepth() {
    return (int) sum(CoreDriver::queueDepth);
  }

  /**
   * Inputs queued for the busiest shard: what the sum hides when one hot range saturates its shard
   * while the others idle.
   */
  int deepestQueue() {
    return Arrays.stream(drivers).mapToInt(CoreDriver::queueDepth).max().orElse(0);
  }

  /** Whether every shard runs and takes client operations. */
  boolean serving() {
    return Arrays.stream(drivers).allMatch(CoreDriver::serving);
  }

  int openOperations() {
    return (int) sum(CoreDriver::openOperations);
  }

  /** A per-shard figure summed over the shards (metrics and tests: not on a hot path). */
  private long sum(ToLongFunction<CoreDriver> perShard) {
    return Arrays.stream(drivers).mapToLong(perShard).sum();
  }

  void stopAccepting() {
    for (CoreDriver d : drivers) {
      d.stopAccepting();
    }
  }

  /**
   * Graceful stop: refuses new operations and waits up to {@code timeout} for those running to be
   * answered.
   */
  void drain(Duration timeout) {
    stopAccepting();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (openOperations() > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    int left = openOperations();
    if (left > 0) {
      // Those end when the core stops: mutations with an unknown outcome. Say so, with the knob.
      LOG.log(
          System.Logger.Level.WARNING,
          left
              + " client operation(s) still running after the drain's "
              + timeout.toMillis()
              + " ms (node.drainTimeout); they end now, mutations with an unknown outcome");
    }
  }

  void stop() {
    for (CoreDriver d : drivers) {
      d.stop();
    }
  }

  /** Every shard keeps its durable hand-off bases with {@code keeper}. Before {@link #start}. */
  void keepHandOffBases(HandOffBaseKeeper keeper) {
    baseKeeper = keeper;
    for (CoreDriver d : drivers) {
      d.keepHandOffBases(keeper);
    }
  }

  private volatile HandOffBaseKeeper baseKeeper;

  /** Durable hand-off base records not trusted at start (deleted; those ranges scan). */
  long handOffBasesUntrusted() {
    HandOffBaseKeeper k = baseKeeper;
    return k == null ? 0 : k.untrusted();
  }
}
