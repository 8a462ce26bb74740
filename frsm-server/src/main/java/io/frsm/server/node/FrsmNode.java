package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreStats;
import io.frsm.lsm.LsmEngine;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.membership.MembershipAgent;
import io.frsm.server.membership.QuarantineRepairAgent;
import io.frsm.server.ring.Ring;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.stream.RangeStreams;
import io.frsm.server.zk.RangeLeadership;
import io.frsm.server.zk.ZkLayout;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One frsm node: the LSM engine, the consensus cores on their own threads ({@link CoreShards}), the
 * Netty peer transport and client protocol server, and membership in ZooKeeper.
 *
 * <pre>{@code
 * FrsmNode node = FrsmNode.builder()
 *     .nodeId(1).clusterId("prod")
 *     .dataDirectory(Path.of("/var/lib/frsm"))
 *     .zookeeper("zk1:2181,zk2:2181,zk3:2181")
 *     .build();
 * node.start();
 * node.awaitReady(Duration.ofMinutes(1));
 * FrsmClient client = node.client();
 * }</pre>
 *
 * <p>This class holds the lifecycle — what starts and stops in which order — and the public
 * accessors. A start runs three sequences, each owning the parts it starts: {@link LocalParts}
 * (meters, {@link NodeStorage}, disk space watch, range streams, {@link OperationRouter} — runs,
 * forwards or redirects each operation —, {@link NodeTransports}, embedded clients, {@link
 * SecurityMeters}), then {@link ClusterJoin} ({@link NodeMembership}: ZooKeeper session,
 * registration, watches; {@link ClusterFormation}: the cluster's shape and ring, refusing a node it
 * does not describe), and once formed {@link ServingStart} ({@link Serving}: core shards and range
 * leadership, natural leaders preferred; {@link ServingAgents}: ring follower, membership and
 * repair agents). The stop runs them backwards as one {@link StopSequence}. Every setting is read
 * from the node's settings and handed to the parts as a value.
 */
public final class FrsmNode implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  private final NodeSettings settings;
  private final int nodeId;
  private final ZkLayout layout;
  private final ClusterMembers members = new ClusterMembers();

  /** What clients' topology watches hear; told of every change by the parts that see it. */
  private final NodeTopology topology = new NodeTopology(members);

  /** The parts started before the node joins the cluster (set by start(), under the monitor). */
  private final LocalParts local = new LocalParts();

  /** ZooKeeper membership and the cluster's formation, started once the local parts run. */
  private final ClusterJoin join = new ClusterJoin();

  /** The ring follower, membership and repair agents; started once the node serves. */
  private final ServingAgents agents = new ServingAgents();

  /** Started once the cluster formed (under the formation's lock). */
  private final Serving serving = new Serving();

  private volatile boolean started;
  private volatile boolean stopped;

  FrsmNode(NodeSettings settings) {
    this.settings = settings;
    this.nodeId = settings.nodeId();
    this.layout = new ZkLayout(settings.get(NodeKeys.CLUSTER_ID));
  }

  public static FrsmNodeBuilder builder() {
    return new FrsmNodeBuilder();
  }

  /**
   * Starts the node: opens the LSM (replaying its commit log), increments the boot counter durably,
   * starts the transports, connects to ZooKeeper and registers. Returns once registered; the node
   * serves once the cluster has formed ({@link #awaitReady}).
   *
   * @throws IOException if the data directory cannot be opened or the boot counter written
   * @throws IllegalStateException if ZooKeeper is unreachable or the node id is taken
   */
  public synchronized void start() throws IOException {
    if (started) {
      throw new IllegalStateException("node " + nodeId + " was started already");
    }
    started = true;
    boolean ok = false;
    try {
      local.start(
          settings,
          serving,
          members,
          topology,
          new NodeAdminSite(this, members, agents::orchestrator),
          () -> stopped);
      join.start(this, settings, layout, local, serving, agents, members, topology, () -> stopped);
      ok = true;
      LOG.log(
          Level.INFO,
          "node {0} boot {1} started: peer {2}, client {3}",
          nodeId,
          local.storage.boot(),
          peerAddress(),
          clientAddress());
    } catch (RuntimeException | IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("node " + nodeId + " could not start: " + e, e);
    } finally {
      if (!ok) {
        shutdown(false, false);
      }
    }
  }

  /**
   * Waits until the node serves (the cluster formed and its core runs).
   *
   * @throws IllegalStateException if the node cannot join (cluster size, unknown node id) or the
   *     wait timed out
   */
  public void awaitReady(Duration timeout) {
    ClusterFormation f = join.formation();
    if (f == null) {
      throw new IllegalStateException(
          stopped ? "node stopped" : "node " + nodeId + " was not started");
    }
    f.awaitFormed(timeout);
  }

  /**
   * A client whose operations this node coordinates (τ = the caller's clock). Each call returns a
   * new client with its own session ordering; close it when done (closing the node closes it too).
   */
  public FrsmClient client() {
    if (!started || stopped) {
      throw new IllegalStateException("node " + nodeId + " is not running");
    }
    return local.clients.open();
  }

  public int nodeId() {
    return nodeId;
  }

  /** This incarnation's boot count (1 on the first start). */
  public int boot() {
    NodeStorage s = local.storage;
    return s == null ? 0 : s.boot();
  }

  /** The bound peer address (the actual port when 0 was asked). */
  public InetSocketAddress peerAddress() {
    return local.transports.peerAddress();
  }

  /** The bound client protocol address (the actual port when 0 was asked). */
  public InetSocketAddress clientAddress() {
    return local.transports.clientAddress();
  }

  /**
   * The core's counters (warm/cold CAS, reads by mode, failures) as of its last tick; zero before
   * the node serves, and again with each start.
   */
  public CoreStats coreStats() {
    NodeMetrics m = local.metrics;
    return m == null ? CoreStats.ZERO : m.stats();
  }

  /**
   * Whether the node serves client operations now: the cluster formed, its core runs, and it is
   * neither stopping nor stopped after a fatal error. What {@code /health} reports in {@code frsm
   * server}.
   */
  public boolean serving() {
    return !stopped && serving.coreServing();
  }

  /** Gets this incarnation served on the callers' threads (CallerThreadReads); for tests. */
  long callerThreadReads() {
    CoreShards core = serving.core();
    return core == null ? 0 : core.callerThreadReads();
  }

  /** The registry holding this node's and its engine's meters. */
  public MeterRegistry meterRegistry() {
    return settings.meterRegistry();
  }

  /** Ranges whose term this node holds now (0 before it serves). */
  public int rangesLed() {
    RangeLeadership l = serving.leadership();
    return l == null || stopped ? 0 : l.rangesHeld();
  }

  /**
   * Terms this node handed over on purpose and marked released, and terms it won from a released
   * predecessor without the lease wait (diagnostics and tests; also {@code frsm.lease.handovers}).
   */
  public long[] leaseHandovers() {
    RangeLeadership l = serving.leadership();
    return l == null ? new long[2] : new long[] {l.releasesMarked(), l.termsAfterRelease()};
  }

  /** Its serving parts, for tests: leadership and the cores' counters. */
  Serving servingParts() {
    return serving;
  }

  /** Whether this node holds the term of ring range {@code range} now. */
  public boolean leadsRange(int range) {
    RangeLeadership l = serving.leadership();
    return l != null && !stopped && l.holds(range);
  }

  /** Test hook: the view this node's clients are told now. */
  io.frsm.client.transport.TopologySnapshot topologyView() {
    return topology.current();
  }

  /** The ring version this node's cores run with; -1 before it serves. */
  public long ringVersion() {
    CoreShards core = serving.core();
    return core == null ? -1 : core.ringVersion();
  }

  /** The cluster's ring (fixed with its shape), or null before the cluster formed. */
  public Ring ring() {
    return members.ring();
  }

  /** Test hook: ZooKeeper expires this node's session; it must register and lead again. */
  void expireZooKeeperSession() throws Exception {
    join.membership().expireSession();
  }

  /** Test hook: client operations this node's core holds now (admitted, not yet answered). */
  int openOperations() {
    CoreShards core = serving.core();
    return core == null ? 0 : core.openOperations();
  }

  /**
   * Forces a major compaction of this node's tables now (what {@code frsm admin compact} is for):
   * reclaims the space of deletes whose purge mark is past {@code lsm.tombstoneGracePeriod} without
   * waiting for the engine's own purge compaction. The future completes once the compacted table is
   * published; exceptionally if the compaction failed (nothing is lost: the tables stay).
   *
   * @throws IllegalStateException if the node is not running
   */
  public java.util.concurrent.CompletableFuture<Void> compact() {
    NodeStorage s = local.storage;
    if (!started || stopped || s == null) {
      throw new IllegalStateException("node " + nodeId + " is not running");
    }
    return s.compact();
  }

  /**
   * The "needs repair" signal (issue 23): every token interval this replica's storage quarantined
   * as corrupt, empty when healthy. Meanwhile the node is a silent acceptor for the keys there and
   * never serves them from its local cells; every other key is served. Repair, per interval, in
   * this order: make this node a learner of the ranges holding the interval at a new ring version,
   * settle those ranges from the voters, then {@link #releaseQuarantine(long)}, then make it a
   * voter again (docs/PROTOCOL.md "Corrupt storage"). The node requests that repair by itself
   * ({@code QuarantineRepairAgent}); {@link #requestRepair()} asks for it at once.
   */
  public java.util.List<io.frsm.lsm.QuarantinedInterval> needsRepair() {
    LsmEngine e = engine();
    return e == null ? java.util.List.of() : e.quarantinedIntervals();
  }

  /**
   * Requests the repair of this node's quarantined storage now ({@code frsm admin repair}); the
   * node also requests it by itself (docs/OPERATIONS.md "Corrupt storage").
   *
   * @throws IllegalStateException if nothing is quarantined, another membership change runs, or the
   *     node is not serving
   * @throws IllegalArgumentException if the repair would leave a range below a quorum of voters
   */
  public io.frsm.server.membership.MembershipChange requestRepair() throws Exception {
    QuarantineRepairAgent a = agents.repairAgent();
    if (a == null || stopped) {
      throw new IllegalStateException("node " + nodeId + " is not serving");
    }
    return a.requestNow();
  }

  /**
   * Ends the quarantine of table {@code generation} once its intervals were repaired (see {@link
   * #needsRepair()} for the order; releasing before the settle is unsafe). The node's repair agent
   * calls it at the repair's learner version, after {@code RepairScope.checkRelease}.
   */
  public void releaseQuarantine(long generation) throws IOException {
    LsmEngine e = engine();
    if (e == null) {
      throw new IllegalStateException("node " + nodeId + " is not started");
    }
    LOG.log(
        System.Logger.Level.INFO,
        "node {0} releases the quarantine of table {1}",
        nodeId,
        generation);
    e.releaseQuarantine(generation);
  }

  /**
   * Copies token ranges from other nodes into this node's engine (docs/formats/streaming.md), for
   * the membership orchestrator; {@link RangeCopier#none()} before {@link #start()}.
   */
  public RangeCopier rangeCopier() {
    RangeStreams s = local.streams;
    return s == null ? RangeCopier.none() : s;
  }

  /** The membership agent once the node serves, else null (tests). */
  MembershipAgent membershipAgent() {
    return agents.membershipAgent();
  }

  /** The engine, for operators' tools and tests. */
  public LsmEngine engine() {
    NodeStorage s = local.storage;
    return s == null ? null : s.engine();
  }

  /**
   * Graceful stop: refuses new client operations, lets those running finish (up to the drain
   * timeout), deregisters, stops the transports and closes the engine (which flushes its memtables,
   * so the next start replays little).
   */
  @Override
  public void close() {
    shutdown(true, false);
  }

  /**
   * Stops at once as if the process were killed with SIGKILL: no draining, no deregistration, no
   * flush. Everything acknowledged is in the commit log and survives a restart on the same
   * directories. For failure drills (the demo) and tests.
   */
  public void kill() {
    shutdown(false, true);
  }

  /**
   * Stops the parts, each step logged if it fails and the rest run anyway. Only a graceful stop
   * drains, leaves the latches (releasing the leases) and deregisters; a killed node's session end
   * removes its records. A kill abandons the engine, any other stop closes it.
   */
  private synchronized void shutdown(boolean graceful, boolean killEngine) {
    if (stopped) {
      return;
    }
    stopped = true;
    ClusterFormation formation = join.formation();
    if (formation != null) {
      formation.close(); // after this no core is started: what `serving` runs is final
    }
    // The parts are set once by start(); null ones never started, so have nothing to stop.
    StopSequence stop =
        new StopSequence("node " + nodeId)
            .thenIf(graceful, "drain", () -> serving.drain(settings.get(NodeKeys.DRAIN_TIMEOUT)))
            .then("end range leadership", () -> serving.endLeadership(graceful));
    join.stopWatching(stop).then("stop watching range leaders", serving::closeLeaderWatch);
    agents.stopRepairAndMembership(stop);
    join.leave(stop, graceful);
    local.stopClientSide(stop).then("stop the core", serving::stopCore);
    local.stopAfterCore(stop, killEngine).run();
    LOG.log(Level.INFO, "node {0} stopped ({1})", nodeId, graceful ? "closed" : "killed");
  }

  /** The validated settings this node runs with (tests check the builder's mapping here). */
  NodeSettings settings() {
    return settings;
  }
}
