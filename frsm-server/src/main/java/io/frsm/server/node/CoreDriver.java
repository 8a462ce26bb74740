package io.frsm.server.node;

import io.frsm.consensus.core.CellStoreException;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.NodeCore;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ReadMode;
import io.frsm.consensus.core.RefusedInputException;
import io.frsm.consensus.core.ShardRouting;
import io.frsm.lsm.LsmEngine;
import io.frsm.store.CachingCellStore;
import io.frsm.store.CallerThreadReads;
import io.frsm.store.LsmPersister;
import io.frsm.transport.PeerTransport;
import io.netty.util.concurrent.EventExecutor;
import java.lang.System.Logger.Level;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * The event loop that owns one of a node's {@link NodeCore}s — its only one, or one shard of {@link
 * CoreShards} (docs/PROTOCOL.md "How a production driver calls it", "Core shards"). One thread at a
 * time; every input reaches the core through its queue: client operations, peer messages (a send to
 * this node itself comes back through the queue), persist completions from the commit-log threads,
 * and a {@link Input.Tick} every {@code tickNanos}.
 *
 * <p>The thread is the driver's own, or ({@code coreOnTransportLoop}) one of the node's Netty event
 * loops, which then runs the core between its I/O: an input that arrives on that loop (a peer
 * message, a client request on a channel of that loop) is queued and drained without waking another
 * thread, and the core's sends and replies to channels of that loop are written by it directly.
 * That saves the futex wake-ups and context switches of two hand-offs per input, at the price of
 * the loop's I/O waiting while the core steps (store reads included).
 *
 * <p>Effects are carried out in the order the core returns them, without blocking the loop: {@code
 * Persist} is handed to the {@link LsmPersister} (whose completion enqueues {@code PersistDone}),
 * {@code Send} to the peer transport (which queues and returns), {@code Reply} completes the
 * caller's future.
 *
 * <p>What one input can do (docs/OPERATIONS.md "Failure policy"): an exception while the core
 * handles one client operation fails that operation only ({@link CoreSteps#stepClientOperation}); a
 * peer message the core refuses ({@link RefusedInputException}) is dropped. Both are counted and
 * logged at most once a second. Anything else is fatal — a failed persist (the write may or may not
 * survive), a storage failure ({@link CellStoreException}), an {@link Error}, or an exception while
 * the core handles a peer message, a persist completion, a tick or a coordination input (the
 * acceptor's lanes or a range's lease may be half-updated): the core can no longer describe durable
 * state. The loop then stops, every open operation fails (mutations with an unknown outcome), and
 * {@code onFatal} is told. Restart the node (a new boot) to serve again.
 *
 * <p>While disk space is low, the messages that would make the acceptor write (its own included)
 * are dropped before the core sees them ({@link AcceptorSilence}, docs/PROTOCOL.md "Disk space
 * guard"), so that a persist rarely fails for want of space.
 */
final class CoreDriver {
  private static final System.Logger LOG = System.getLogger(CoreDriver.class.getName());
  private static final int MAX_EVENTS_PER_TURN = 4096;

  private sealed interface Event {}

  private record Submit(OpenOperations.Call call) implements Event {}

  private record Step(Input input) implements Event {}

  private record Fatal(Throwable error) implements Event {}

  private final int nodeId;
  private final ContainedFailures contained;
  private final PendingReleases releases = new PendingReleases();
  private final PendingHandOffs handOffs = new PendingHandOffs();
  private final RingCalls ring;
  private final NodeCore core;
  private final CoreSteps steps;

  /** Every tick is the same input (a record without components): one instance, not 500 a second. */
  private static final Input.Tick TICK = new Input.Tick();

  private final long tickNanos;
  private final Consumer<Throwable> onFatal;
  private final PeerMessageCounts peerMessages;
  private final AcceptorSilence silence;
  private final LinkedBlockingQueue<Event> queue = new LinkedBlockingQueue<>();

  /** The driver's own thread; null when it runs on a transport event loop ({@link #hosted}). */
  private final Thread thread;

  /** Its turns on the transport event loop the core runs on; null when it has its own thread. */
  private final HostLoopTurns hosted;

  /** Leader-only reads on the caller's thread; null when the core serves none. */
  private final CallerThreadReads callerReads;

  /** Guards the switch to stopped against submits, so no submit is queued after the last drain. */
  private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();

  private boolean stopped; // guarded by lifecycle
  private volatile boolean accepting = true;
  private volatile boolean running = true;
  private final OpenOperations open = new OpenOperations();

  /** The core's scans and hand-offs as of the last tick, for readers on other threads. */
  private volatile HandOffTally handOffTally = HandOffTally.ZERO;

  // Loop thread only.

  /**
   * @param routing how the node splits its inputs between shards; this driver is shard {@code
   *     shard} and receives only inputs {@code routing} gives it
   * @param hostLoop the transport event loop to run on, or null for a thread of its own
   */
  CoreDriver(
      int nodeId,
      ShardRouting routing,
      int shard,
      int boot,
      CoreConfig config,
      CachingCellStore store,
      LsmEngine engine,
      PeerTransport transport,
      long tickNanos,
      PeerMessageCounts peerMessages,
      EventExecutor hostLoop,
      Consumer<Throwable> onFatal,
      java.time.Duration stepDownAfter,
      RangeQuorums quorums,
      AcceptorSilence silence) {
    this.nodeId = nodeId;
    this.silence = silence;
    this.contained = new ContainedFailures(nodeId, LOG);
    if (shard < 0 || shard >= routing.shards()) {
      throw new IllegalArgumentException("no shard " + shard + " of " + routing.shards());
    }
    SplittableRandom random = new SplittableRandom();
    this.core = new NodeCore(nodeId, boot, config, store, random::nextLong);
    this.ring = new RingCalls(config.placement().ringVersion());
    if (!stepDownAfter.isZero()) {
      // Probes read the term cell of a range this shard owns, so their replies come back here.
      core.watchQuorums(stepDownAfter, range -> routing.ofRange(range) == shard);
    }
    // Callers are user threads and Netty event loops: they read the clock cache only, never the
    // LSM (a miss goes to the core, which loads the key into the cache for the next read).
    CallerThreadReads reads =
        new CallerThreadReads(
            config.placement(), key -> store.getIfCached(key, CallerThreadReads.NOT_IN_MEMORY));
    this.callerReads = core.publishReadsTo(reads) ? reads : null;
    LsmPersister persister =
        new LsmPersister(
            engine, store, done -> enqueue(new Step(done)), e -> enqueue(new Fatal(e)));
    this.steps =
        new CoreSteps(
            nodeId,
            routing,
            shard,
            core,
            engine,
            persister,
            transport,
            peerMessages,
            quorums,
            contained,
            open,
            releases,
            handOffs,
            ring,
            receive -> enqueue(new Step(receive)));
    this.tickNanos = tickNanos;
    this.onFatal = onFatal;
    this.peerMessages = peerMessages;
    if (hostLoop == null) {
      this.thread =
          new Thread(
              this::loop,
              "frsm-node-" + nodeId + "-core" + (routing.shards() == 1 ? "" : "-" + shard));
      this.thread.setDaemon(true);
      this.hosted = null;
    } else {
      this.thread = null;
      this.hosted =
          new HostLoopTurns(
              hostLoop,
              this::drainQueued,
              this::tickOnLoop,
              () -> running && !queue.isEmpty(),
              this::fatal);
    }
  }

  void start() {
    if (hosted == null) {
      thread.start();
      return;
    }
    hosted.start(tickNanos);
  }

  /**
   * Submits a client operation with invocation time τ. The future completes with the core's outcome
   * and, for a served get, its read mode (on the loop thread: callers must hop off it before
   * running user code) — or, for a get the core would answer from its local cell under the lease,
   * completes at once on the calling thread ({@link CallerThreadReads}: no hand-off to the loop and
   * back), as a leader-only read.
   */
  CompletableFuture<CoreAnswer> submit(Operation operation, long invokedAtMicros) {
    CompletableFuture<CoreAnswer> result = new CompletableFuture<>();
    if (!accepting) {
      result.complete(
          CoreAnswer.of(new Outcome.NotExecuted("node " + nodeId + " is shutting down")));
      return result;
    }
    if (callerReads != null && running && operation instanceof Operation.Get get && !get.quorum()) {
      Outcome local = callerReads.tryRead(get.key(), System::nanoTime);
      if (local != null) {
        result.complete(new CoreAnswer(local, ReadMode.LEADER_ONLY));
        return result;
      }
    }
    lifecycle.readLock().lock();
    try {
      if (stopped) {
        result.complete(CoreAnswer.of(new Outcome.NotExecuted("node " + nodeId + " is stopped")));
        return result;
      }
      open.admitted();
      enqueue(new Submit(new OpenOperations.Call(operation, invokedAtMicros, result)));
    } finally {
      lifecycle.readLock().unlock();
    }
    return result;
  }

  /**
   * An input from the coordination service: term grants and lease changes, hand-off shipments, and
   * at start the durable hand-off bases (any thread).
   */
  void input(Input input) {
    if (!(input instanceof Input.TermGranted
        || input instanceof Input.LeaseRenewed
        || input instanceof Input.LeaseLost
        || input instanceof Input.Candidacy
        || input instanceof Input.ImportShipment
        || input instanceof Input.RestoreBase)) {
      throw new IllegalArgumentException("not a coordination input: " + input);
    }
    enqueue(new Step(input));
  }

  /**
   * Hands range {@code range}'s term {@code term} over on purpose (ReleaseLease; any thread):
   * completes with the core's answer, whether the term may be marked released; false if the loop
   * stopped first.
   */
  CompletableFuture<Boolean> releaseLease(int range, long term) {
    return releases.release(
        range, term, (r, t) -> enqueueUnlessStopped(new Input.ReleaseLease(r, t)));
  }

  /**
   * Hands range {@code range}'s term {@code term} off (Input.HandOff with this hand-off's cap
   * {@code maxKeys}; any thread): completes with the core's shipment once its drain is done, null
   * if the loop stopped first; {@code begun} hears the drain's key count when it begins. The caller
   * bounds the wait: a drain that cannot finish never answers.
   */
  CompletableFuture<io.frsm.consensus.core.HandOffShipment> handOff(
      int range, long term, int maxKeys, java.util.function.IntConsumer begun) {
    return handOffs.handOff(
        range, term, begun, (r, t) -> enqueueUnlessStopped(new Input.HandOff(r, t, maxKeys)));
  }

  /** Queues {@code input} for the loop unless it stopped: whether it was queued. */
  private boolean enqueueUnlessStopped(Input input) {
    lifecycle.readLock().lock();
    try {
      if (stopped) {
        return false;
      }
      enqueue(new Step(input));
      return true;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** A peer message (any thread; never blocks). */
  void receive(int from, Message message) {
    enqueue(new Step(new Input.Receive(from, message)));
  }

  private void enqueue(Event event) {
    queue.add(event);
    if (hosted != null) {
      hosted.scheduleDrain();
    }
  }

  /** On the host loop: steps up to {@link #MAX_EVENTS_PER_TURN} queued inputs, then yields. */
  private void drainQueued() {
    for (int handled = 0; handled < MAX_EVENTS_PER_TURN && running; handled++) {
      Event event = queue.poll();
      if (event == null) {
        break;
      }
      handle(event);
    }
  }

  /** On the host loop, every {@code tickNanos}. */
  private void tickOnLoop() {
    if (!running) {
      return;
    }
    try {
      steps.step(TICK);
      publish();
    } catch (RuntimeException | Error e) {
      fatal(e);
    }
  }

  /**
   * The core's counters now (after the loop ended, as it ended): built when asked — a meter's poll
   * every few seconds — not published every tick, which cost a 23-counter snapshot every 2 ms busy
   * or idle. Exact per counter, not atomic across counters ({@link NodeCore#stats}).
   */
  CoreStats stats() {
    CoreStats core = this.core.stats();
    long onCallers = callerReads == null ? 0 : callerReads.served();
    return onCallers == 0 ? core : core.plus(CoreStats.leaderOnlyReads(onCallers));
  }

  /**
   * On the loop: publishes the core's scan and hand-off counts for other threads (once per tick): a
   * new tally only when one moved, which is rare.
   */
  private void publish() {
    HandOffTally last = handOffTally;
    long scans = core.rangeScansCompleted();
    long shipped = core.handOffsShipped();
    long entered = core.handOffsEntered();
    long refused = core.handOffsRefused();
    if (scans != last.scansCompleted()
        || shipped != last.shipped()
        || entered != last.enteredByImport()
        || refused != last.importsRefused()) {
      handOffTally = new HandOffTally(scans, shipped, entered, refused);
    }
  }

  /** The core's range scans and hand-offs, as of its last tick. */
  HandOffTally handOffTally() {
    return handOffTally;
  }

  /** Gets answered on the callers' threads so far. */
  long callerThreadReads() {
    return callerReads == null ? 0 : callerReads.served();
  }

  /** Inputs queued for the loop: a growing value means the core cannot keep up. */
  int queueDepth() {
    return queue.size();
  }

  /** Whether the loop runs and takes client operations (false once stopping, stopped or failed). */
  boolean serving() {
    return running && accepting;
  }

  /** Client operations submitted and not yet answered. */
  int openOperations() {
    return open.count();
  }

  /** Client operations answered with an error because the core failed on them. */
  long operationErrors() {
    return contained.operationErrors();
  }

  /** Peer messages the core refused (a field outside {@code InputBounds}) and that were dropped. */
  long refusedPeerMessages() {
    return contained.refusedPeerMessages();
  }

  /**
   * From now on new client operations are refused ({@code NotExecuted}); peers are still served.
   */
  void stopAccepting() {
    accepting = false;
  }

  /**
   * Stops the loop and waits for its thread. Operations still open fail: those the core never saw
   * as not executed, the others as their kind allows (a mutation's outcome is unknown).
   */
  synchronized void stop() { // the node and CoreShards' stopper may both stop a shard
    running = false;
    if (hosted == null) {
      thread.interrupt();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      awaitLoopTurn();
    }
    lifecycle.writeLock().lock();
    try {
      stopped = true;
    } finally {
      lifecycle.writeLock().unlock();
    }
    failOpen("node " + nodeId + " stopped");
  }

  /**
   * Installs {@code next} (PlacementChanged; any thread): completes once this shard runs with its
   * version or a newer one, exceptionally if the core refused it or stopped.
   */
  CompletableFuture<Void> install(Placement next) {
    CompletableFuture<Void> done = ring.awaitInstalled(next.ringVersion());
    enqueue(new Step(new Input.PlacementChanged(next)));
    return done;
  }

  /**
   * Settles {@code range} at {@code version} (SettleRange): the core's answer, false if stopped.
   */
  CompletableFuture<Boolean> settle(int range, long version) {
    CompletableFuture<Boolean> done = ring.awaitSettled(range, version);
    enqueue(new Step(new Input.SettleRange(range, version)));
    return done;
  }

  /** This shard's ring calls (installed version, the RingBehind listener). */
  RingCalls ring() {
    return ring;
  }

  /**
   * On the host loop's turns, once {@code running} is false: {@link HostLoopTurns#awaitTurn}, then
   * the loop's state is this thread's.
   */
  private void awaitLoopTurn() {
    hosted.awaitTurn();
    publish();
  }

  private void failOpen(String reason) {
    releases.failAll(); // not clean: the successor waits
    handOffs.failAll(); // no shipment: the agent releases plainly
    ring.close();
    open.failRunning(reason + " while the operation was running");
    for (Event e; (e = queue.poll()) != null; ) {
      if (e instanceof Submit s) {
        OpenOperations.failQueued(s.call(), reason + " before the operation started");
      }
    }
    open.closed();
  }

  private void loop() {
    long nextTick = System.nanoTime();
    try {
      while (running) {
        long wait = nextTick - System.nanoTime();
        Event event = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : queue.poll();
        for (int handled = 0; event != null && running; ) {
          handle(event);
          if (++handled == MAX_EVENTS_PER_TURN) {
            break;
          }
          event = queue.poll();
        }
        long now = System.nanoTime();
        if (running && now - nextTick >= 0) {
          steps.step(TICK);
          nextTick = now + tickNanos;
          publish(); // once per tick, not per event
        }
      }
    } catch (InterruptedException stopping) {
      // stop() interrupts the poll.
    } catch (RuntimeException | Error e) {
      fatal(e);
    } finally {
      publish();
    }
  }

  private void handle(Event event) {
    if (event instanceof Submit s) {
      steps.stepClientOperation(open.run(s.call()), s.call());
    } else if (event instanceof Step s) {
      if (s.input() instanceof Input.Receive r) {
        if (r.from() != nodeId) {
          peerMessages.received(r.from());
        }
        // Its own messages too (the acceptor must not write while disk space is low), but for its
        // commits to itself: see AcceptorSilence.
        if (!silence.drops(r.message(), r.from() == nodeId)) {
          steps.stepPeerMessage(r);
        }
      } else {
        steps.step(s.input());
      }
    } else if (event instanceof Fatal f) {
      fatal(f.error());
    }
  }

  private void fatal(Throwable error) {
    if (!running) {
      return;
    }
    LOG.log(
        Level.ERROR,
        "node "
            + nodeId
            + " stops serving: its durable state can no longer be vouched for; restart it",
        error);
    running = false;
    if (hosted != null) {
      awaitLoopTurn(); // on the loop: cancels the tick
    }
    lifecycle.writeLock().lock();
    try {
      stopped = true;
    } finally {
      lifecycle.writeLock().unlock();
    }
    failOpen("node " + nodeId + " failed (" + error + ")");
    onFatal.accept(error);
  }

  /** See {@link CoreSteps#keepHandOffBases}. Before {@link #start}. */
  void keepHandOffBases(HandOffBaseKeeper keeper) {
    steps.keepHandOffBases(keeper);
  }
}
