package io.frsm.testkit.sim;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.NodeCore;
import io.frsm.consensus.core.Now;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ShardRouting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A deterministic cluster of {@link NodeCore}s: one thread, one seed, virtual time, a priority
 * queue of {@code (time, seq, event)}, and forked random streams per node and subsystem. It plays
 * the network (drop, duplicate, delay and reorder, partitions), the disks (persists complete after
 * a random latency; a crash loses the ones not completed) and the clocks (wall clocks skewed within
 * a bound). The {@link SafetyChecker} sees every durable change and every accept sent.
 *
 * <p>Membership changes: the simulation holds the published ring history ({@link RingHistory}),
 * builds restarted nodes with its newest version, adds nodes with empty stores, stops nodes for
 * good, and hands the nodes' ring effects to a {@link MembershipAgent} (the orchestrator).
 *
 * <p>Any failure is rethrown with the seed and step, and replays from the seed alone.
 */
public final class Simulation {
  /** Virtual wall-clock origin (2023-11-14), so ballot rounds look like real microseconds. */
  static final long WALL_ORIGIN_MICROS = 1_700_000_000_000_000L;

  private final long seed;
  private final FaultMix faults;
  private final CoreConfig coreConfig;

  /** What a node (re)started now is built with: {@link #coreConfig} with the latest placement. */
  private CoreConfig startConfig;

  /** A placement change waiting for its time ({@link #changePlacementAt}); null: none. */
  private Placement pendingPlacement;

  private long pendingPlacementAtNanos;

  private long placementChangesFed;
  private final long tickNanos;
  private final SimRandom networkRandom;
  private final SimRandom diskRandom;
  private final SimRandom faultRandom;
  private SimNode[] nodes;
  private boolean[][] cut;
  private final SimStorage storage;

  /** The published ring versions (what ZooKeeper holds): checkers count quorums over them. */
  private final RingHistory ring;

  /** Random streams of nodes added by a membership change (null until the first is added). */
  private SimRandom addedNodesRandom;

  private MembershipAgent membershipAgent;
  private Runnable onStartFaults = () -> {};
  private Runnable onStopFaults = () -> {};
  private final SafetyChecker checker;
  private long coveringShipments;
  private long coveredKeysChecked;
  private boolean coverageChecked = true;
  private final PurgeChecker purgeChecker;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Map<Long, Consumer<Outcome>> awaitingReply = new HashMap<>();
  private final Map<String, Long> messagesByType = new HashMap<>();

  /** Persists asked for by the cores: logged (a synced commit-log append on a node) and hints. */
  private long loggedPersists;

  private long hintPersists;
  private long nextSeq;
  private long nextRequestId;
  private long nowNanos;
  private long steps;
  private long traceHash;
  private long pendingNonTicks;
  private boolean faultsActive;
  private MessageFilter filter = (from, to, message) -> false;
  private MessageFilter localFilter = (from, to, message) -> false;
  private final Map<Long, Submitted> submitted = new HashMap<>();
  private ClientObserver clientObserver = (node, op, invokedNanos, outcome) -> {};
  private EffectObserver effectObserver = (node, effect) -> {};
  private EffectObserver leaseAgent = (node, effect) -> {};

  /** The cores' quorum watch ({@link #watchQuorums}); null: off, as the traces before it. */
  private java.time.Duration unreachableAfter;

  private long leaderOnlyReadsOfDeadCores;
  private long handOffsEnteredOfDeadCores;
  private long entryBasesOfDeadCores;
  private long enteredOnEntryBaseOfDeadCores;
  private long basesRestoredOfDeadCores;
  private final long[] leaderOnlyKeptOfDeadCores = new long[2];
  private final DurableBases durableBases = new DurableBases();

  /** Gets try the caller-thread path first ({@link #serveReadsOnCallerThreads}); null: off. */
  private SimRandom callerReadRandom;

  private long callerThreadReads;

  private java.util.function.UnaryOperator<io.frsm.consensus.core.ReadGate> gateTamper;

  /** How each node splits its inputs between its core shards. */
  private final ShardRouting routing;

  /** Sees every client operation's answer, with when it was handed to the node. */
  @FunctionalInterface
  public interface ClientObserver {
    void answered(int node, Operation operation, long invokedNanos, Outcome outcome);
  }

  /** Sees every effect a node emits (after the simulator carried it out). */
  @FunctionalInterface
  public interface EffectObserver {
    void emitted(int node, Effect effect);
  }

  private record Submitted(Operation operation, long invokedNanos) {}

  /**
   * Where a node's membership effects go ({@link Effect.RingInstalled}, {@link Effect.RingBehind},
   * {@link Effect.RangeSettled}): the orchestrator of membership changes.
   */
  public interface MembershipAgent {
    void emitted(int node, Effect effect);

    /**
     * Node {@code node} (re)started with a core built at ring version {@code ringVersion}: it
     * refuses rounds of older versions as if it had installed that one.
     */
    void started(int node, long ringVersion);
  }

  /** Scripted message loss for tests: return true to drop. */
  @FunctionalInterface
  public interface MessageFilter {
    boolean drop(int from, int to, Message message);
  }

  private record Event(long at, long seq, boolean tick, Runnable action)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(at, o.at);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private static final class SimNode {
    final int id;
    NodeStorage store;
    final SimRandom random;
    int boot;
    int incarnation;
    boolean up;

    /** Stopped for good (a dead or removed node): never restarted. */
    boolean stopped;

    /** This incarnation's core shards ({@link ShardRouting}); null while the node is down. */
    NodeCore[] cores;

    /**
     * This incarnation's reads outside the cores' threads, one per shard, when the simulation
     * serves them (else null).
     */
    io.frsm.store.CallerThreadReads[] callerReads;

    long skewMicros;

    /** The monotonic clock's rate error in parts per million, within ±ρ; its arbitrary origin. */
    long driftPpm;

    long monoOriginNanos;

    /** A paused process handles nothing until then (GC, SIGSTOP, a stalled VM). */
    long pausedUntilNanos;

    SimNode(int id, NodeStorage store, SimRandom random) {
      this.id = id;
      this.store = store;
      this.random = random;
    }
  }

  public Simulation(long seed, FaultMix faults, CoreConfig coreConfig, long tickNanos) {
    this(seed, faults, coreConfig, tickNanos, SimStorage.MEMORY);
  }

  /** As above, each node storing its cells as {@code storage} says. Call {@link #close()}. */
  public Simulation(
      long seed, FaultMix faults, CoreConfig coreConfig, long tickNanos, SimStorage storage) {
    this(seed, faults, coreConfig, tickNanos, storage, 1);
  }

  /**
   * As above, every node running {@code coreShards} cores that split the ranges between them, as a
   * production node with {@code consensus.coreThreads} does ({@link ShardRouting}).
   */
  public Simulation(
      long seed,
      FaultMix faults,
      CoreConfig coreConfig,
      long tickNanos,
      SimStorage storage,
      int coreShards) {
    this.routing = new ShardRouting(coreConfig.placement(), coreShards);
    this.seed = seed;
    this.faults = faults;
    this.coreConfig = coreConfig;
    this.startConfig = coreConfig;
    this.tickNanos = tickNanos;
    this.traceHash = seed;
    this.storage = storage;
    this.ring = new RingHistory(coreConfig.placement());
    SimRandom root = new SimRandom(seed);
    this.networkRandom = root.fork();
    this.diskRandom = root.fork();
    this.faultRandom = root.fork();
    int n = faults.nodes();
    this.checker = new SafetyChecker(ring);
    this.purgeChecker = new PurgeChecker(ring);
    this.nodes = new SimNode[n];
    this.cut = new boolean[n][n];
    // Drifting monotonic clocks only with leases on, so that runs without leases keep their traces.
    SimRandom clockRandom = new SimRandom(seed ^ 0xC10CL);
    long rho = coreConfig.leases().enabled() ? coreConfig.leases().driftPartsPerMillion() : 0;
    for (int i = 0; i < n; i++) {
      nodes[i] = new SimNode(i, storage.open(i, this::onDurable), root.fork());
      // Often at the bound itself: the lease argument is tight there.
      nodes[i].driftPpm =
          switch (clockRandom.nextInt(3)) {
            case 0 -> -rho;
            case 1 -> rho;
            default -> clockRandom.between(-rho, rho);
          };
      nodes[i].monoOriginNanos = rho == 0 ? 0 : clockRandom.between(0, 1L << 40);
      start(nodes[i]);
    }
  }

  /** Starts the fault phase: crashes, partitions, message loss and duplication. */
  public void startFaults() {
    faultsActive = true;
    onStartFaults.run();
    if (faults.crashesPerSecond() > 0) {
      schedule(faultRandom.exponentialNanos(faults.crashesPerSecond()), this::crashSomeNode);
    }
    if (faults.partitionsPerSecond() > 0) {
      schedule(faultRandom.exponentialNanos(faults.partitionsPerSecond()), this::partition);
    }
  }

  /** The simulator's settings for a seed: timings scaled so a run covers many rounds. */
  public static CoreConfig simConfig(int nodes) {
    List<Integer> replicas = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      replicas.add(i);
    }
    return CoreConfig.builder(Placement.single(replicas))
        .boundedDelay(Duration.ofMillis(200))
        .hedgeDelay(Duration.ofMillis(8))
        .roundTimeout(Duration.ofMillis(40))
        .backoffMax(Duration.ofMillis(20))
        .build();
  }

  /**
   * The simulator's settings for a seed's mix: every node replicates every key, except in half of
   * the five-node runs, which place each key on 3 of the 5 nodes ({@link #ringPlacement}), as a
   * five-node production cluster with replication factor 3 does.
   */
  public static CoreConfig simConfig(long seed, FaultMix mix) {
    CoreConfig config = simConfig(mix.nodes());
    if (mix.nodes() == 5 && Math.floorMod(seed, 2) == 0) {
      config = config.toBuilder().placement(ringPlacement(5, 3)).build();
    }
    return config;
  }

  /**
   * {@code nodes} equal ranges; range {@code i} is replicated on nodes {@code i, i+1, …, i+rf-1}
   * (mod {@code nodes}), natural leader first: every node leads one range and follows {@code rf-1}.
   */
  public static Placement ringPlacement(int nodes, int rf) {
    long step = Long.divideUnsigned(-1L, nodes);
    List<Long> ends = new ArrayList<>();
    List<List<Integer>> sets = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      ends.add(i == nodes - 1 ? Long.MAX_VALUE : Long.MIN_VALUE + step * (i + 1));
      List<Integer> set = new ArrayList<>();
      for (int r = 0; r < rf; r++) {
        set.add((i + r) % nodes);
      }
      sets.add(set);
    }
    return Placement.of(ends, sets);
  }

  public long seed() {
    return seed;
  }

  public FaultMix faults() {
    return faults;
  }

  public CoreConfig coreConfig() {
    return coreConfig;
  }

  public int nodeCount() {
    return nodes.length;
  }

  public long nowNanos() {
    return nowNanos;
  }

  public long steps() {
    return steps;
  }

  public long traceHash() {
    return traceHash;
  }

  public SafetyChecker checker() {
    return checker;
  }

  private void onDurable(int node, Cell before, Cell delta, Cell after, boolean logged) {
    checker.onDurable(node, before, delta, after);
    purgeChecker.onDurable(node, delta, logged);
  }

  /** Purge marks recorded so far (each checked against phase 1). */
  public long purgesChecked() {
    return purgeChecker.purgesChecked();
  }

  /** Drops messages a node sends itself (which never cross the network {@link #setFilter} sees). */
  public void setLocalFilter(MessageFilter filter) {
    this.localFilter = filter;
  }

  public void setFilter(MessageFilter filter) {
    this.filter = filter;
  }

  /** Messages sent so far by type (self-sends included). */
  public long messages(Class<? extends Message> type) {
    return messagesByType.getOrDefault(type.getSimpleName(), 0L);
  }

  /**
   * Logged persists the cores asked for so far (each a commit-log append a real node syncs, grouped
   * with others by its group commit), crashed nodes' included.
   */
  public long loggedPersists() {
    return loggedPersists;
  }

  /** Persists asked for as hints (docs/PROTOCOL.md "Commits are hints"): never synced. */
  public long hintPersists() {
    return hintPersists;
  }

  public long messagesTotal() {
    return messagesByType.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Makes {@code key} unreadable at {@code node}, as a corrupt block quarantined by the real LSM
   * does. REQUIRES: the simulation stores cells in memory ({@link SimStorage#MEMORY}).
   */
  public void quarantine(int node, io.frsm.cell.Key key) {
    ((SimStore) nodes[node].store).quarantine(key);
  }

  public long storeReads(int node) {
    return nodes[node].store.reads();
  }

  public long storeWrites(int node) {
    return nodes[node].store.writes();
  }

  /**
   * Stores {@code cell} durably at {@code node} as if a persist completed, before the run starts
   * (large data sets for measurements; the safety checker sees it like any persist).
   */
  public void preload(int node, Cell cell) {
    nodes[node].store.makeDurable(cell);
  }

  /** Node {@code node}'s durable cell for {@code key} (null: nothing), without counting a read. */
  public Cell durableCell(int node, Key key) {
    return nodes[node].store.peek(key);
  }

  /** Releases the nodes' storage (files and threads of the LSM modes). */
  public void close() {
    for (SimNode node : nodes) {
      node.store.close();
    }
  }

  public boolean isUp(int node) {
    return nodes[node].up;
  }

  /** The node's monotonic clock now: real time at a rate within ±ρ, from an arbitrary origin. */
  public long monoNanos(int node) {
    SimNode n = nodes[node];
    return n.monoOriginNanos + nowNanos + Math.multiplyExact(nowNanos, n.driftPpm) / 1_000_000;
  }

  public boolean isPaused(int node) {
    return nodes[node].pausedUntilNanos > nowNanos;
  }

  /** Counts the node's starts; a crash ends an incarnation. */
  public int incarnation(int node) {
    return nodes[node].incarnation;
  }

  /**
   * Pauses node {@code node}'s process for {@code nanos}: it handles no input until then (its
   * monotonic clock keeps running, so it resumes with beliefs that may have expired meanwhile).
   */
  public void pause(int node, long nanos) {
    SimNode n = nodes[node];
    if (n.up) {
      n.pausedUntilNanos = Math.max(n.pausedUntilNanos, nowNanos + nanos);
      mix(0x23, node, nanos);
      if (TRACE) {
        System.out.println(nowNanos / 1000 + " PAUSE n" + node + " for " + nanos / 1000 + "µs");
      }
    }
  }

  /**
   * Runs {@code action} in node {@code node}'s process now, or when its pause ends; dropped if the
   * node is down or restarted meanwhile.
   */
  public void onNode(int node, Runnable action) {
    SimNode n = nodes[node];
    int incarnation = n.incarnation;
    if (!n.up) {
      return;
    }
    if (n.pausedUntilNanos > nowNanos) {
      schedule(
          n.pausedUntilNanos - nowNanos,
          () -> {
            if (n.incarnation == incarnation) {
              onNode(node, action);
            }
          });
      return;
    }
    action.run();
  }

  /**
   * Tells every running node's cores that the placement is now {@code next} ({@link
   * Input.PlacementChanged}; deferred at a paused node), all at once; nodes started later start
   * with it. It is recorded as published ({@link #publishPlacement}), so the checkers count its
   * version's rounds over its voters. No {@code RingTransition} rule is checked: scripted tests
   * change placements by hand; {@link MembershipOrchestrator} publishes step by step.
   */
  public void changePlacement(Placement next) {
    publishPlacement(next);
    for (SimNode node : nodes) {
      if (node.up) {
        placementChangesFed++;
        input(node.id, new Input.PlacementChanged(next));
      }
    }
  }

  /**
   * Records {@code next} in the durable ring history without telling any node: nodes (re)started
   * from now on are built with it, and the checkers count rounds of its version over its voters.
   * The orchestrator of membership changes delivers it ({@link Input.PlacementChanged}).
   */
  void publishPlacement(Placement next) {
    ring.publish(next);
    if (TRACE) {
      StringBuilder sets = new StringBuilder();
      for (int r = 0; r < next.rangeCount(); r++) {
        sets.append(" r").append(r).append(next.replicas(r)).append('+').append(next.learners(r));
      }
      System.out.println(nowNanos / 1000 + " PUBLISH ring version " + next.ringVersion() + sets);
    }
    startConfig = coreConfig.toBuilder().placement(next).build();
  }

  RingHistory ring() {
    return ring;
  }

  /** Membership effects of every node go to {@code agent} from now on. */
  void setMembershipAgent(MembershipAgent agent) {
    this.membershipAgent = agent;
  }

  /** Runs {@code onStart} when the fault phase starts and {@code onStop} when it ends. */
  void onFaultPhase(Runnable onStart, Runnable onStop) {
    this.onStartFaults = onStart;
    this.onStopFaults = onStop;
  }

  /**
   * Starts a new node with an empty store under the next unused id, built with the newest published
   * placement (in which it replicates nothing yet). Returns its id.
   */
  int addNode() {
    if (addedNodesRandom == null) {
      addedNodesRandom = new SimRandom(seed ^ 0xADD0DEL);
    }
    int id = nodes.length;
    nodes = java.util.Arrays.copyOf(nodes, id + 1);
    boolean[][] wider = new boolean[id + 1][id + 1];
    for (int a = 0; a < id; a++) {
      System.arraycopy(cut[a], 0, wider[a], 0, id);
    }
    cut = wider;
    SimNode node = new SimNode(id, storage.open(id, this::onDurable), addedNodesRandom.fork());
    long rho = coreConfig.leases().enabled() ? coreConfig.leases().driftPartsPerMillion() : 0;
    node.driftPpm = addedNodesRandom.between(-rho, rho);
    node.monoOriginNanos = rho == 0 ? 0 : addedNodesRandom.between(0, 1L << 40);
    nodes[id] = node;
    start(node);
    return id;
  }

  /**
   * {@code preferred}, or if it was stopped for good the next node id, cyclically, that was not:
   * where a client goes instead. A retired node still running (it left the cluster and stops soon)
   * is taken: clients with an old view of the cluster reach it, and it coordinates at its version.
   */
  public int notStopped(int preferred) {
    for (int i = 0; i < nodes.length; i++) {
      int node = Math.floorMod(preferred + i, nodes.length);
      if (!nodes[node].stopped) {
        return node;
      }
    }
    throw new IllegalStateException("every node was stopped for good");
  }

  /** Stops node {@code node} for good (it died, or it was removed): it never restarts. */
  void stopForGood(int node) {
    SimNode n = nodes[node];
    n.stopped = true;
    if (n.up) {
      crash(n);
    }
  }

  public boolean isStopped(int node) {
    return nodes[node].stopped;
  }

  /**
   * Crashes node {@code node} (unlogged writes and persists in flight are lost) and restarts it.
   */
  void crashAndRestart(int node) {
    SimNode n = nodes[node];
    if (n.up) {
      crash(n);
    }
    if (!n.stopped) {
      start(n);
    }
  }

  /**
   * Node {@code node} loses its disk and comes back at once under its old id with an empty store
   * (boot + 1): the unsafe rejoin that rule 3 of {@code RingTransition} forbids, for teeth tests.
   */
  void wipeAndRestart(int node) {
    SimNode n = nodes[node];
    if (n.up) {
      crash(n);
    }
    n.store.close();
    n.store = storage.open(node, this::onDurable);
    purgeChecker.wiped(node);
    durableBases.wiped(node);
    if (!n.stopped) {
      start(n);
    }
  }

  /** Placement changes handed to running nodes so far, one per node. */
  public long placementChangesFed() {
    return placementChangesFed;
  }

  /**
   * {@link #changePlacement} at the first step boundary at or after {@code atNanos} at which no
   * node is paused. It schedules no event and draws from no random stream, so a run whose cores
   * answer the change with nothing keeps its trace hash.
   */
  public void changePlacementAt(long atNanos, Placement next) {
    pendingPlacement = java.util.Objects.requireNonNull(next);
    pendingPlacementAtNanos = atNanos;
  }

  private void changePlacementIfDue() {
    if (pendingPlacement == null || nowNanos < pendingPlacementAtNanos) {
      return;
    }
    for (SimNode node : nodes) {
      if (isPaused(node.id)) {
        return;
      }
    }
    Placement next = pendingPlacement;
    pendingPlacement = null;
    changePlacement(next);
  }

  /** Feeds {@code input} to node {@code node} (deferred while it is paused). */
  public void input(int node, Input input) {
    guarded(() -> onNode(node, () -> stepNode(nodes[node], input)));
  }

  public void setClientObserver(ClientObserver observer) {
    this.clientObserver = observer;
  }

  public void setEffectObserver(EffectObserver observer) {
    this.effectObserver = observer;
  }

  /**
   * Where {@link Effect.LeaseReleased} and {@link Effect.QuorumReachability} go: the node's
   * coordination agent (LeaseService).
   */
  public void setLeaseAgent(EffectObserver agent) {
    this.leaseAgent = agent;
  }

  /**
   * Turns every core's quorum watch on from the next start (as the production driver does, {@code
   * consensus.stepDownAfter}): a peer counts as unreachable once a request to it has gone
   * unanswered for {@code after}; each core watches the ranges its shard owns. Call before the
   * first step: the running cores turn it on now, every later start with it.
   */
  public void watchQuorums(java.time.Duration after) {
    if (steps > 0) {
      throw new IllegalStateException("watchQuorums must be called before the first step");
    }
    this.unreachableAfter = after;
    for (SimNode node : nodes) {
      for (int s = 0; s < node.cores.length; s++) {
        int shard = s;
        node.cores[s].watchQuorums(after, range -> routing.ofRange(range) == shard);
      }
    }
  }

  /** Range scans the current incarnation of {@code node} completed (0 while it is down). */
  public long rangeScansCompleted(int node) {
    SimNode n = nodes[node];
    long total = 0;
    for (NodeCore core : coresOf(n)) {
      total += core.rangeScansCompleted();
    }
    return total;
  }

  /**
   * Voter changes through which a range kept leader-only mode, and of them those of more than one
   * voter (see {@code NodeCore.leaderOnlyKeptThroughVoterChanges}), by every incarnation of every
   * node.
   */
  public long[] leaderOnlyKeptThroughVoterChanges() {
    long[] total = leaderOnlyKeptOfDeadCores.clone();
    for (SimNode n : nodes) {
      for (NodeCore core : coresOf(n)) {
        long[] kept = core.leaderOnlyKeptThroughVoterChanges();
        total[0] += kept[0];
        total[1] += kept[1];
      }
    }
    return total;
  }

  /**
   * Ranges put in leader-only mode from an imported hand-off, without a scan, by every incarnation
   * of every node.
   */
  public long handOffsEntered() {
    long total = handOffsEnteredOfDeadCores;
    for (SimNode n : nodes) {
      for (NodeCore core : coresOf(n)) {
        total += core.handOffsEntered();
      }
    }
    return total;
  }

  /**
   * Entry bases reached by every incarnation of every node (step 3 of a killed holder's return).
   */
  public long entryBasesReached() {
    long total = entryBasesOfDeadCores;
    for (SimNode n : nodes) {
      for (NodeCore core : coresOf(n)) {
        total += core.handOffEntryBasesReached();
      }
    }
    return total;
  }

  /**
   * Ranges put in leader-only mode by an import taken on an entry base (step 4), by every
   * incarnation of every node.
   */
  public long handOffsEnteredOnEntryBase() {
    long total = enteredOnEntryBaseOfDeadCores;
    for (SimNode n : nodes) {
      for (NodeCore core : coresOf(n)) {
        total += core.handOffsEnteredOnEntryBase();
      }
    }
    return total;
  }

  /** Entry bases' durable records written, across nodes. */
  public long entryBaseRecordsWritten() {
    return durableBases.entryWritten();
  }

  /**
   * Node {@code node} is killed (as by {@code kill -9}: no hand-off, its unlogged commits lost) and
   * started again on its disk {@code downNanos} later, unless it was stopped meanwhile.
   */
  void killFor(int node, long downNanos) {
    SimNode n = nodes[node];
    if (!n.up) {
      return;
    }
    crash(n);
    int incarnation = n.incarnation;
    schedule(
        downNanos,
        () -> {
          if (!n.up && !n.stopped && n.incarnation == incarnation) {
            start(n);
          }
        });
  }

  /**
   * The written keys the drain of {@code range}'s term {@code term} at the running core of {@code
   * node} began settling, or -1 if no such drain runs there.
   */
  public int handOffDrainKeys(int node, int range, long term) {
    int keys = -1;
    for (NodeCore core : coresOf(nodes[node])) {
      keys = Math.max(keys, core.handOffDrainKeys(range, term));
    }
    return keys;
  }

  /** Shipments the running core of {@code node} refused to import (0 while it is down). */
  public long handOffsRefused(int node) {
    long total = 0;
    for (NodeCore core : coresOf(nodes[node])) {
      total += core.handOffsRefused();
    }
    return total;
  }

  /**
   * Keys the running core of {@code node} counted as written for its predecessor's ballots (0 while
   * it is down).
   */
  public long keysClassified(int node) {
    long total = 0;
    for (NodeCore core : coresOf(nodes[node])) {
      total += core.handOffKeysClassified();
    }
    return total;
  }

  /** Leader-only reads served by every incarnation of every node. */
  public long leaderOnlyReads() {
    long total = leaderOnlyReadsOfDeadCores;
    for (SimNode n : nodes) {
      total += leaderOnlyReads(n);
    }
    return total;
  }

  /** The counters of {@code node}'s running core ({@link CoreStats#ZERO} while it is down). */
  public CoreStats stats(int node) {
    CoreStats total = CoreStats.ZERO;
    for (NodeCore core : coresOf(nodes[node])) {
      total = total.plus(core.stats());
    }
    return total;
  }

  /** Every client key some replica durably holds (what a range scan would list). */
  public java.util.SortedSet<io.frsm.cell.Key> storedKeys() {
    java.util.SortedSet<io.frsm.cell.Key> keys = new java.util.TreeSet<>();
    for (SimNode n : nodes) {
      keys.addAll(n.store.clientKeys());
    }
    return keys;
  }

  /** The node's wall clock now, as its clients see it (τ). */
  public long wallMicros(int node) {
    return WALL_ORIGIN_MICROS + nowNanos / 1000 + nodes[node].skewMicros;
  }

  // ---- Scheduling ------------------------------------------------------------------------------

  public void schedule(long delayNanos, Runnable action) {
    pendingNonTicks++;
    queue.add(new Event(nowNanos + delayNanos, nextSeq++, false, action));
  }

  private void scheduleTick(SimNode node, int incarnation) {
    queue.add(
        new Event(
            nowNanos + tickNanos,
            nextSeq++,
            true,
            () -> {
              if (node.up && node.incarnation == incarnation) {
                if (node.pausedUntilNanos <= nowNanos) {
                  stepNode(node, new Input.Tick());
                }
                scheduleTick(node, incarnation);
              }
            }));
  }

  /**
   * From now on every get first tries the production caller-thread path ({@link
   * io.frsm.store.CallerThreadReads}) on the node it is sent to, as the node's embedded client
   * does: the three steps of that path run at random moments a few microseconds apart, with the
   * node's other events in between (the reader thread racing the core's thread); a read that path
   * refuses goes to the core. Cores of nodes started from now on publish to it; call before the
   * nodes take their first step (right after construction).
   */
  public void serveReadsOnCallerThreads() {
    serveReadsOnCallerThreads(gate -> gate);
  }

  /**
   * As {@link #serveReadsOnCallerThreads()}, the cores publishing through {@code tamper} (tests of
   * the checkers' teeth: a gate that forgets what the core tells it must be caught).
   */
  public void serveReadsOnCallerThreads(
      java.util.function.UnaryOperator<io.frsm.consensus.core.ReadGate> tamper) {
    this.gateTamper = tamper;
    callerReadRandom = new SimRandom(seed ^ 0x5EADL);
    for (SimNode node : nodes) {
      if (node.up) {
        attachCallerReads(node);
      }
    }
  }

  /** Gets served by the caller-thread path so far (all incarnations). */
  public long callerThreadReads() {
    return callerThreadReads;
  }

  private void attachCallerReads(SimNode node) {
    node.callerReads = null;
    if (callerReadRandom != null) {
      var readers = new io.frsm.store.CallerThreadReads[node.cores.length];
      for (int s = 0; s < readers.length; s++) {
        readers[s] = new io.frsm.store.CallerThreadReads(coreConfig.placement(), node.store::get);
        if (!node.cores[s].publishReadsTo(gateTamper.apply(readers[s]))) {
          return; // every shard has the same settings: none serves outside its core
        }
      }
      node.callerReads = readers;
    }
  }

  /**
   * Hands {@code operation} to node {@code node} now; {@code onReply} runs when it answers. Returns
   * the request id, or -1 if the node is down (the request is lost; clients time out).
   */
  public long submit(int node, Operation operation, Consumer<Outcome> onReply) {
    SimNode target = nodes[node];
    long id = nextRequestId++;
    mix(0x51, node, id);
    if (!target.up) {
      return -1;
    }
    awaitingReply.put(id, onReply);
    submitted.put(id, new Submitted(operation, nowNanos));
    if (target.callerReads != null && operation instanceof Operation.Get get) {
      readOnCallerThread(target, target.incarnation, id, get, wallMicros(node));
    } else {
      input(node, new Input.ClientRequest(id, operation, wallMicros(node)));
    }
    return id;
  }

  /**
   * The caller-thread path of {@link io.frsm.store.CallerThreadReads}: begin, read the store,
   * finish — each inside the node's process (deferred while it is paused; lost if it crashes), a
   * few microseconds apart. A refused read is submitted to the core, keeping its invocation time.
   */
  private void readOnCallerThread(
      SimNode node, int incarnation, long id, Operation.Get get, long tauMicros) {
    // The reader of the shard owning the key: only that shard's core publishes its range's lease.
    io.frsm.store.CallerThreadReads reads = node.callerReads[routing.ofKey(get.key())];
    Runnable toCore = () -> input(node.id, new Input.ClientRequest(id, get, tauMicros));
    onNode(
        node.id,
        () -> {
          var attempt = reads.begin(get.key());
          if (attempt == null) {
            toCore.run();
            return;
          }
          afterCallerDelay(
              node,
              incarnation,
              () -> {
                Cell cell = node.store.get(get.key());
                afterCallerDelay(
                    node,
                    incarnation,
                    () -> {
                      Outcome served = reads.finish(attempt, cell, monoNanos(node.id));
                      if (served == null) {
                        toCore.run();
                      } else {
                        callerThreadReads++;
                        apply(node, -1, new Effect.Reply(id, served));
                      }
                    });
              });
        });
  }

  /** The reader thread's next step, a few microseconds on, inside the same node incarnation. */
  private void afterCallerDelay(SimNode node, int incarnation, Runnable step) {
    schedule(callerReadRandom.between(0, 30_000), () -> onNodeIncarnation(node, incarnation, step));
  }

  /**
   * Runs {@code action} in {@code node}'s process if it is still incarnation {@code incarnation}.
   */
  private void onNodeIncarnation(SimNode node, int incarnation, Runnable action) {
    if (node.up && node.incarnation == incarnation) {
      onNode(
          node.id,
          () -> {
            if (node.incarnation == incarnation) {
              action.run();
            }
          });
    }
  }

  /** How a client call with a timeout ended. */
  public interface CallReply {
    void accept(Outcome outcome, boolean timedOut);
  }

  /**
   * A client call with a timeout: submits {@code operation} at {@code node}; {@code reply} runs
   * exactly once, with the node's outcome, or with an unknown outcome if none came within {@code
   * timeoutNanos} (the request is then abandoned and a late reply ignored).
   */
  public void call(int node, Operation operation, long timeoutNanos, CallReply reply) {
    boolean[] answered = {false};
    long requestId =
        submit(
            node,
            operation,
            o -> {
              if (!answered[0]) {
                answered[0] = true;
                reply.accept(o, false);
              }
            });
    schedule(
        timeoutNanos,
        () -> {
          if (!answered[0]) {
            answered[0] = true;
            if (requestId >= 0) {
              abandon(requestId);
            }
            reply.accept(new Outcome.Unknown("client timeout"), true);
          }
        });
  }

  /** Stops waiting for {@code requestId} (a client timed out); a late reply is then ignored. */
  public void abandon(long requestId) {
    awaitingReply.remove(requestId);
  }

  /** Processes one event. Returns false when nothing is left. */
  public boolean step() {
    Event e = queue.poll();
    if (e == null) {
      return false;
    }
    if (!e.tick) {
      pendingNonTicks--;
    }
    nowNanos = e.at;
    steps++;
    mix(0x11, e.at, e.seq);
    guarded(e.action);
    if (pendingPlacement != null) {
      guarded(this::changePlacementIfDue);
    }
    return true;
  }

  /** Runs {@code action}; a violation or error it throws names the seed, step and time. */
  private void guarded(Runnable action) {
    try {
      action.run();
    } catch (SafetyViolation | RuntimeException violation) {
      throw new AssertionError(failureMessage(violation.getMessage()), violation);
    } catch (AssertionError error) {
      if (error.getMessage() != null && error.getMessage().startsWith("seed ")) {
        throw error;
      }
      throw new AssertionError(failureMessage(String.valueOf(error.getMessage())), error);
    }
  }

  public String failureMessage(String what) {
    return "seed "
        + seed
        + " ("
        + faults.name()
        + ", n="
        + faults.nodes()
        + (coreConfig.placement().rangeCount() > 1 ? ", " + coreConfig.placement() : "")
        + ") step "
        + steps
        + " at "
        + nowNanos / 1000
        + "µs: "
        + what
        + "  [replay: -Dfrsm.sim.seed="
        + seed
        + "]";
  }

  /** Runs until {@code done} holds, or fails if virtual time passes {@code limitNanos}. */
  public void runUntil(BooleanSupplier done, long limitNanos, String what) {
    while (!done.getAsBoolean()) {
      if (nowNanos > limitNanos || !step()) {
        throw new AssertionError(
            failureMessage("no progress: " + what + " not reached by " + limitNanos / 1000 + "µs"));
      }
    }
  }

  /** Runs until no event but ticks is pending and no node has work in progress. */
  public void runUntilQuiet(long limitNanos) {
    runUntil(this::quiet, limitNanos, "quiescence");
  }

  private boolean quiet() {
    if (pendingNonTicks > 0) {
      return false;
    }
    for (SimNode node : nodes) {
      if (node.up) {
        for (NodeCore core : node.cores) {
          if (core.activeOperations() > 0 || core.keysAwaitingPersist() > 0) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /**
   * Ends the fault phase: heals partitions, restarts every node, stops dropping messages. Delays
   * and clock skew stay.
   */
  public void stopFaults() {
    faultsActive = false;
    onStopFaults.run();
    for (boolean[] row : cut) {
      java.util.Arrays.fill(row, false);
    }
    for (SimNode node : nodes) {
      if (!node.up && !node.stopped) {
        start(node);
      }
    }
  }

  // ---- Nodes -----------------------------------------------------------------------------------

  private void start(SimNode node) {
    node.boot++; // persisted before the node serves: no ballot of an old incarnation is reused
    node.incarnation++;
    node.up = true;
    node.skewMicros = faultRandom.between(-faults.skewMaxMicros(), faults.skewMaxMicros());
    node.cores = new NodeCore[routing.shards()];
    for (int s = 0; s < node.cores.length; s++) {
      // One shard: the node's random stream exactly as before shards existed (same traces).
      SimRandom random = node.random.fork();
      node.cores[s] = new NodeCore(node.id, node.boot, startConfig, node.store, random);
      if (unreachableAfter != null) {
        int shard = s;
        node.cores[s].watchQuorums(unreachableAfter, range -> routing.ofRange(range) == shard);
      }
    }
    attachCallerReads(node);
    mix(0x21, node.id, node.boot);
    // The driver reads its base records before anything else reaches the cores.
    for (DurableBases.Record r : durableBases.of(node.id)) {
      stepShard(
          node,
          routing.ofRange(r.range()),
          new Input.RestoreBase(r.range(), r.term(), r.ringVersion(), r.entry()));
    }
    scheduleTick(node, node.incarnation);
    if (membershipAgent != null) {
      membershipAgent.started(node.id, startConfig.placement().ringVersion());
    }
  }

  private void crash(SimNode node) {
    if (TRACE) {
      System.out.println(nowNanos / 1000 + " CRASH n" + node.id);
    }
    node.up = false;
    node.incarnation++; // persists not completed, ticks and self-sends of the old one die
    node.pausedUntilNanos = 0;
    leaderOnlyReadsOfDeadCores += leaderOnlyReads(node);
    for (NodeCore core : coresOf(node)) {
      handOffsEnteredOfDeadCores += core.handOffsEntered();
      entryBasesOfDeadCores += core.handOffEntryBasesReached();
      enteredOnEntryBaseOfDeadCores += core.handOffsEnteredOnEntryBase();
      long[] kept = core.leaderOnlyKeptThroughVoterChanges();
      leaderOnlyKeptOfDeadCores[0] += kept[0];
      leaderOnlyKeptOfDeadCores[1] += kept[1];
      basesRestoredOfDeadCores += core.handOffBasesRestored();
    }
    node.cores = null;
    node.store.crash();
    mix(0x22, node.id, node.boot);
  }

  private void crashSomeNode() {
    if (faultsActive) {
      SimNode victim = nodes[faultRandom.nextInt(nodes.length)];
      if (victim.up) {
        crash(victim);
        schedule(
            1000 * faultRandom.between(faults.downMinMicros(), faults.downMaxMicros()),
            () -> {
              if (!victim.up && !victim.stopped) {
                start(victim);
              }
            });
      }
      schedule(faultRandom.exponentialNanos(faults.crashesPerSecond()), this::crashSomeNode);
    }
  }

  private void partition() {
    if (!faultsActive) {
      return;
    }
    int n = nodes.length;
    boolean[] side = new boolean[n];
    int size = 1 + faultRandom.nextInt(n / 2);
    for (int chosen = 0; chosen < size; ) {
      int i = faultRandom.nextInt(n);
      if (!side[i]) {
        side[i] = true;
        chosen++;
      }
    }
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        cut[a][b] = side[a] != side[b];
      }
    }
    mix(0x31, size, 0);
    schedule(
        1000 * faultRandom.between(faults.partitionMinMicros(), faults.partitionMaxMicros()),
        () -> {
          for (boolean[] row : cut) {
            java.util.Arrays.fill(row, false);
          }
          if (faultsActive) {
            schedule(faultRandom.exponentialNanos(faults.partitionsPerSecond()), this::partition);
          }
        });
  }

  private static final NodeCore[] NO_CORES = new NodeCore[0];

  /** The node's running cores; none while it is down. */
  private static NodeCore[] coresOf(SimNode node) {
    return node.cores == null ? NO_CORES : node.cores;
  }

  private static long leaderOnlyReads(SimNode node) {
    long total = 0;
    for (NodeCore core : coresOf(node)) {
      total += core.leaderOnlyReads();
    }
    return total;
  }

  /**
   * Steps the shard owning {@code input}; a tick or a placement change steps every shard, in shard
   * order.
   */
  private void stepNode(SimNode node, Input input) {
    if (input instanceof Input.Tick || input instanceof Input.PlacementChanged) {
      stepShard(node, -1, input);
    } else {
      stepShard(node, routing.of(input), input);
    }
  }

  /** Steps shard {@code shard} of {@code node} (-1: every shard, for a tick). */
  private void stepShard(SimNode node, int shard, Input input) {
    if (node.pausedUntilNanos > nowNanos) {
      onNode(node.id, () -> stepShard(node, shard, input));
      return;
    }
    if (shard < 0) {
      for (int s = 0; s < node.cores.length; s++) {
        stepShard(node, s, input);
      }
      return;
    }
    Now now = new Now(wallMicros(node.id), monoNanos(node.id));
    List<Effect> effects = node.cores[shard].step(now, input);
    for (Effect effect : effects) {
      apply(node, shard, effect);
    }
  }

  private static final boolean TRACE = Boolean.getBoolean("frsm.sim.trace");

  private void apply(SimNode node, int shard, Effect effect) {
    if (TRACE) {
      System.out.println(nowNanos / 1000 + " n" + node.id + " " + effect);
    }
    mix(0x41, node.id, effect.toString().hashCode());
    if (effect instanceof Effect.Persist p) {
      if (p.logged()) {
        loggedPersists++;
      } else {
        hintPersists++;
      }
      int incarnation = node.incarnation;
      long latency =
          1000 * diskRandom.between(faults.persistMinMicros(), faults.persistMaxMicros());
      schedule(
          latency,
          () -> {
            if (node.up && node.incarnation == incarnation) {
              if (p.logged()) {
                node.store.makeDurable(
                    p.delta()); // the disk finishes even while the process pauses
              } else {
                node.store.makeVisible(p.delta()); // a hint: lost by a crash
              }
              stepShard(node, shard, new Input.PersistDone(p.persistId()));
            }
          });
    } else if (effect instanceof Effect.Send s) {
      if (s.to() == node.id && shard >= 0 && routing.ofKey(s.message().key()) != shard) {
        // The production driver stops the node here (CoreDriver): a core speaks only of its own
        // ranges, so what it sends itself must come back to it.
        throw new AssertionError(
            failureMessage(
                "node "
                    + node.id
                    + " shard "
                    + shard
                    + " sent itself a message another shard owns: "
                    + s.message()));
      }
      send(node, s.to(), s.message());
    } else if (effect instanceof Effect.Reply r) {
      Submitted asked = submitted.remove(r.requestId());
      if (asked != null) {
        clientObserver.answered(node.id, asked.operation(), asked.invokedNanos(), r.outcome());
      }
      Consumer<Outcome> client = awaitingReply.remove(r.requestId());
      if (client != null) {
        schedule(0, () -> client.accept(r.outcome()));
      }
    } else if (effect instanceof Effect.BaseReached b) {
      recordBase(node, b);
    } else if (effect instanceof Effect.BaseDropped d) {
      durableBases.drop(node.id, d.range()); // at once: before the step's later effects
    } else if (effect instanceof Effect.HandOffShipped s && s.shipment().coversTerm() != 0) {
      if (coverageChecked) {
        checkCoverage(node.id, s.shipment());
      }
      leaseAgent.emitted(node.id, effect);
    } else if (effect instanceof Effect.LeaseReleased
        || effect instanceof Effect.QuorumReachability
        || effect instanceof Effect.HandOffShipped
        || effect instanceof Effect.HandOffDeclined) {
      leaseAgent.emitted(node.id, effect);
    } else if (membershipAgent != null
        && (effect instanceof Effect.RingInstalled
            || effect instanceof Effect.RingBehind
            || effect instanceof Effect.RangeSettled)) {
      membershipAgent.emitted(node.id, effect);
    }
    effectObserver.emitted(node.id, effect);
  }

  /**
   * A shipment marked as covering term {@code t} must name every key of its range with a value
   * first chosen in {@code t} (docs/PROTOCOL.md "A killed holder: covering its term"); the safety
   * checker knows which those are from the accepts it saw and the durable cells.
   */
  private void checkCoverage(int node, HandOffShipment shipment) {
    Set<Key> chosen = checker.keysFirstChosenInTerm(shipment.range(), shipment.coversTerm());
    Set<Key> named = new java.util.HashSet<>();
    for (HandOffShipment.Entry e : shipment.entries()) {
      named.add(e.key());
    }
    coveringShipments++;
    coveredKeysChecked += chosen.size();
    for (Key key : chosen) {
      if (!named.contains(key)) {
        throw new SafetyViolation(
            "node "
                + node
                + " shipped term "
                + shipment.term()
                + " of range "
                + shipment.range()
                + " as covering term "
                + shipment.coversTerm()
                + " but its "
                + shipment.entries().size()
                + " entries miss "
                + key
                + ", chosen in that term");
      }
    }
  }

  /**
   * Turns {@link #checkCoverage} off: only for a scenario that drops the classification on purpose
   * to test another safeguard alone ({@link DurableBaseScenario}).
   */
  void skipCoverageCheck() {
    coverageChecked = false;
  }

  /** Shipments marked as covering their term's predecessor, each checked (tests). */
  public long coveringShipments() {
    return coveringShipments;
  }

  /** Keys first chosen in a covered term, each found in its covering shipment (tests). */
  public long coveredKeysChecked() {
    return coveredKeysChecked;
  }

  /**
   * {@link Effect.BaseReached}: as the server's driver does it (docs/PROTOCOL.md "The durable
   * base"), the store's flush, then the record once the flush is durable, each a disk write away; a
   * crash in between leaves what was done. The broken modes of {@link DurableBases} reorder or skip
   * the flush.
   */
  private void recordBase(SimNode node, Effect.BaseReached b) {
    DurableBases.Mode mode = durableBases.mode();
    if (mode == DurableBases.Mode.OFF || (b.entry() && !durableBases.entryRecords())) {
      return;
    }
    if (mode == DurableBases.Mode.ENTRY_RECORD_BEFORE_FLUSH && !b.entry()) {
      mode = DurableBases.Mode.FLUSH_THEN_RECORD;
    }
    int incarnation = node.incarnation;
    Runnable flush =
        () -> {
          if (node.up && node.incarnation == incarnation) {
            node.store.flush();
            durableBases.flushed();
          }
        };
    Runnable record =
        () -> {
          if (node.up && node.incarnation == incarnation) {
            durableBases.write(node.id, b);
          }
        };
    long first = 1000 * diskRandom.between(faults.persistMinMicros(), faults.persistMaxMicros());
    long second = 1000 * diskRandom.between(faults.persistMinMicros(), faults.persistMaxMicros());
    switch (mode) {
      case RECORD_BEFORE_FLUSH, ENTRY_RECORD_BEFORE_FLUSH -> {
        schedule(first, record);
        schedule(first + second, flush);
      }
      case RECORD_WITHOUT_FLUSH -> schedule(first, record);
      default -> {
        schedule(first, flush);
        schedule(first + second, record);
      }
    }
  }

  /** Whether entry bases are flushed and recorded (on unless a scenario turns them off). */
  void setEntryBaseRecords(boolean on) {
    durableBases.entryRecords(on);
  }

  /** How the nodes keep their durable hand-off bases ({@link DurableBases.Mode}). */
  void setDurableBases(DurableBases.Mode mode) {
    durableBases.mode(mode);
  }

  /** The durable base records node {@code node} holds now. */
  java.util.List<DurableBases.Record> durableBases(int node) {
    return durableBases.of(node);
  }

  /** Base flushes and base records done so far, across nodes (for crash points). */
  long durableBaseWrites() {
    return durableBases.writes();
  }

  /** Durable base records written, across nodes. */
  public long durableBasesWritten() {
    return durableBases.written();
  }

  /** Durable bases taken back at start by every incarnation of every node. */
  public long durableBasesRestored() {
    long n = basesRestoredOfDeadCores;
    for (SimNode node : nodes) {
      for (NodeCore core : coresOf(node)) {
        n += core.handOffBasesRestored();
      }
    }
    return n;
  }

  private void send(SimNode from, int to, Message message) {
    checker.onSend(from.id, message);
    purgeChecker.onSend(message);
    messagesByType.merge(message.getClass().getSimpleName(), 1L, Long::sum);
    SimNode target = nodes[to];
    if (to == from.id) {
      if (localFilter.drop(from.id, to, message)) {
        return;
      }
      // Local delivery: not through the network, and gone if the node crashes meanwhile.
      int incarnation = from.incarnation;
      schedule(0, () -> deliver(target, incarnation, from.id, message));
      return;
    }
    if (filter.drop(from.id, to, message)) {
      return;
    }
    if (faultsActive && (cut[from.id][to] || networkRandom.chance(faults.dropProbability()))) {
      return;
    }
    int copies = faultsActive && networkRandom.chance(faults.duplicateProbability()) ? 2 : 1;
    for (int i = 0; i < copies; i++) {
      long delay = 1000 * networkRandom.between(faults.delayMinMicros(), faults.delayMaxMicros());
      schedule(delay, () -> deliver(target, -1, from.id, message));
    }
  }

  private void deliver(SimNode target, int requiredIncarnation, int from, Message message) {
    if (!target.up || (requiredIncarnation >= 0 && target.incarnation != requiredIncarnation)) {
      return;
    }
    stepNode(target, new Input.Receive(from, message));
  }

  private void mix(long a, long b, long c) {
    long h = traceHash;
    h = (h ^ a) * 0x9E3779B97F4A7C15L;
    h = (Long.rotateLeft(h, 29) ^ b) * 0xBF58476D1CE4E5B9L;
    h = (Long.rotateLeft(h, 31) ^ c) * 0x94D049BB133111EBL;
    traceHash = h;
  }
}
