package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.client.RequestLimits;
import io.frsm.server.client.SessionCounters;
import io.frsm.server.config.NodeDefaults;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeLeaders;
import io.frsm.server.zk.RangeLeadership;
import io.frsm.server.zk.ZkLayout;
import io.frsm.store.CachingCellStore;
import io.frsm.store.LsmCellStore;
import io.frsm.transport.ClientProtocolClient;
import io.frsm.transport.ClientProtocolServer;
import io.frsm.transport.NettyPeerTransport;
import io.frsm.transport.OperationRequest;
import io.frsm.transport.OperationResponse;
import io.frsm.transport.TransportConfig;
import io.frsm.transport.TransportEventLoops;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

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
 * <p><b>Clusters.</b> A cluster forms once {@code initialNodes} nodes (default 3, at least the
 * replication factor, default 3) have registered: the first ones to register, with their racks,
 * become the cluster's {@link ClusterShape}, stored in ZooKeeper with the replication factor of the
 * node that formed it and fixed from then on. Every key lives on the replication factor's replicas
 * of its ring range (rack-aware, natural leader first) and needs a majority of them; the core gets
 * the ring as its {@link io.frsm.consensus.core.Placement}. A node outside the shape, or configured
 * with another replication factor than the shape's, is refused with an error saying so (this
 * version cannot add or replace nodes).
 *
 * <p><b>Leadership.</b> Each range has one leader at a time, elected in ZooKeeper with the natural
 * leader preferred ({@link RangeLeadership}); it holds a lease renewed every {@code L/4} (leases
 * are on: {@code L} = 2 s, ρ = 10⁻³ by default) and, after scanning its range, answers reads from
 * its own store. Only the leader coordinates a range's operations: any other node forwards an
 * embedded client's operation to it, and answers a thin client with a redirect. A node marks itself
 * ready (so that it takes leadership) once its commit log is replayed and its core runs.
 */
public final class FrsmNode implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  /** Redirects a forwarded operation follows before it gives up (not executed). */
  private static final int MAX_REDIRECTS = 3;

  /**
   * Times an operation is routed again after the node that queued it gave the key's range up before
   * coordinating it. Each needs a hand-over of the range in the meantime; τ + T still bounds the
   * whole.
   */
  private static final int MAX_REROUTES = 3;

  private final NodeSettings settings;
  private final ZkLayout layout;
  private final ClusterMembers members = new ClusterMembers();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final List<EmbeddedClient> clients = new CopyOnWriteArrayList<>();

  /**
   * Orders forming the core (on ZooKeeper's watch thread) against shutdown, so a core is never
   * built after the node stopped. Never held while waiting for another thread.
   */
  private final Object formLock = new Object();

  private LsmEngine engine;
  private CachingCellStore cellStore;
  private RequestLimits limits;
  private int boot;
  private TransportEventLoops loops;
  private TransportConfig transportConfig;
  private NettyPeerTransport peerTransport;
  private ClientProtocolServer clientServer;
  private CuratorFramework zk;
  private MembershipRegistry registry;
  private volatile NodeMetrics metrics;

  /** What the sessions of this node's embedded clients did, for {@link NodeMetrics}. */
  private final SessionCounters sessionCounters = new SessionCounters();

  private volatile CoreShards driver;
  private volatile RangeLeadership leadership;
  private volatile RangeLeaders rangeLeaders;
  private volatile RangeRouter router;
  private volatile NodeInfo selfInfo;
  private final Map<InetSocketAddress, ClientProtocolClient> forwarding = new ConcurrentHashMap<>();
  private final ExecutorService zkChores =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "frsm-node-zk-chores");
            t.setDaemon(true);
            return t;
          });
  private final ConnectionStateListener sessionWatcher = this::onConnectionState;
  private volatile boolean started;
  private volatile boolean stopped;

  /** Set once the cores stopped on a fatal error: the node never registers or leads again. */
  private volatile boolean failed;

  /** Whether range leadership was closed or abandoned (by a stop, or after a fatal error). */
  private final AtomicBoolean leadershipEnded = new AtomicBoolean();

  FrsmNode(NodeSettings settings) {
    this.settings = settings;
    this.layout = new ZkLayout(settings.clusterId);
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
      throw new IllegalStateException("node " + settings.nodeId + " was started already");
    }
    started = true;
    boolean ok = false;
    try {
      LsmConfig lsmConfig = settings.lsmConfig();
      limits = RequestLimits.of(lsmConfig);
      metrics =
          new NodeMetrics(settings.meterRegistry, () -> driver, () -> leadership, sessionCounters);
      engine = LsmEngine.open(lsmConfig, NioFileSystem.INSTANCE, settings.meterRegistry);
      // After the engine opened (so a damaged directory fails before a boot is spent) and before
      // anything is sent: no ballot of an earlier incarnation can be reused.
      boot = BootCounter.next(settings.dataDirectory);
      cellStore = new CachingCellStore(new LsmCellStore(engine), settings.clockCacheBytes);
      loops = TransportEventLoops.create(transportThreads(), true);
      transportConfig = settings.transportConfig();
      peerTransport =
          NettyPeerTransport.start(
              settings.nodeId,
              settings.peerAddress,
              members::peerAddress,
              this::onPeerMessage,
              transportConfig,
              loops);
      clientServer =
          ClientProtocolServer.start(
              settings.clientAddress, this::onClientRequest, transportConfig, loops);
      connectZooKeeper();
      ok = true;
      LOG.log(
          Level.INFO,
          "node {0} boot {1} started: peer {2}, client {3}",
          settings.nodeId,
          boot,
          peerAddress(),
          clientAddress());
    } catch (RuntimeException | IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("node " + settings.nodeId + " could not start: " + e, e);
    } finally {
      if (!ok) {
        shutdown(false, null);
      }
    }
  }

  private void connectZooKeeper() throws Exception {
    int sessionMs = (int) settings.zookeeperSessionTimeout.toMillis();
    zk =
        CuratorFrameworkFactory.builder()
            .connectString(settings.zookeeper)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.min(sessionMs, 15_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 10))
            .build();
    zk.start();
    if (!zk.blockUntilConnected(sessionMs, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "cannot reach ZooKeeper at " + settings.zookeeper + " within " + sessionMs + " ms");
    }
    registry = new MembershipRegistry(zk, layout);
    ClusterShape formed = ClusterShape.read(zk, layout);
    if (formed != null) {
      // Before registering: a refused node never shows up as a member. Placement first, so a node
      // that is refused anyway never publishes its T and ε into a shape written before v3.
      withTiming(formed);
    }
    register();
    zk.getConnectionStateListenable().addListener(sessionWatcher);
    members.watch(
        registry,
        live -> {
          tryForm();
          leadershipView();
          dropForwardingToDepartedMembers();
          redialReappearedPeers();
        });
    members.watchReady(registry, this::leadershipView);
    tryForm();
  }

  /**
   * A member that left (or came back on another port) is not worth redialling: its forwarding
   * connection is closed, failing its calls in flight as the transport rules say.
   */
  private void dropForwardingToDepartedMembers() {
    java.util.Set<InetSocketAddress> live = new java.util.HashSet<>();
    for (int id : members.live()) {
      live.add(members.clientAddress(id));
    }
    forwarding
        .entrySet()
        .removeIf(
            e -> {
              if (live.contains(e.getKey())) {
                return false;
              }
              e.getValue().close();
              return true;
            });
  }

  /** The live members as of the last membership change; guarded by itself. */
  private final java.util.Set<Integer> lastLive = new java.util.HashSet<>();

  /**
   * A member that (re)registered — typically a node restarted after a crash — is dialled now rather
   * than after this node's reconnect back-off to it, so its first rounds as the natural leader that
   * takes its ranges back find its peers listening.
   */
  private void redialReappearedPeers() {
    java.util.Set<Integer> live = java.util.Set.copyOf(members.live());
    NettyPeerTransport t = peerTransport;
    synchronized (lastLive) { // not the node's monitor: start and shutdown hold that one long
      if (t != null) {
        for (int id : live) {
          if (id != settings.nodeId && !lastLive.contains(id)) {
            t.redial(id);
          }
        }
      }
      lastLive.clear();
      lastLive.addAll(live);
    }
  }

  /**
   * Live members or ready markers changed: the ranges this node should lead may have too.
   *
   * <p>This node counts itself ready as soon as it serves and is live in the view, without waiting
   * for its watch to report its own marker: other nodes may see the marker first and route the
   * node's ranges to it, and a node that did not yet count itself would tell its core it does not
   * compete for them and give those operations back (RangeRouter), to bounce between views.
   */
  private void leadershipView() {
    RangeLeadership l = leadership;
    if (l != null) {
      java.util.Set<Integer> live = members.live();
      java.util.Set<Integer> ready = members.ready();
      CoreShards d = driver;
      if (d != null && d.serving() && !failed && live.contains(settings.nodeId)) {
        java.util.Set<Integer> withSelf = new java.util.HashSet<>(ready);
        withSelf.add(settings.nodeId);
        ready = withSelf;
      }
      l.membersChanged(live, ready);
    }
  }

  /**
   * After ZooKeeper expired this node's session (its registration and ready marker went with it),
   * register again in the new session; the range latches rejoin by themselves (Curator) and leases
   * ended at SUSPENDED already ({@link RangeLeadership}).
   */
  private void onConnectionState(CuratorFramework client, ConnectionState state) {
    if (state != ConnectionState.RECONNECTED || stopped) {
      return;
    }
    try {
      zkChores.execute(
          () -> {
            try {
              registerAgain();
            } catch (Exception e) {
              if (!stopped) {
                LOG.log(Level.ERROR, "node " + settings.nodeId + " could not register again", e);
              }
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException stopping) {
      // Shutting down.
    }
  }

  /**
   * Registers again in a new session. The expired session's records may outlive the client's notice
   * of the expiry (the server deletes them when it expires the session on its side, which can come
   * later): retry until they are gone, up to twice the session timeout.
   */
  private void registerAgain() throws Exception {
    long deadline = System.nanoTime() + settings.zookeeperSessionTimeout.toNanos() * 2;
    while (!stopped) {
      if (failed) {
        return; // its cores stopped on a fatal error: it stays out until restarted
      }
      try {
        registry.reregister(selfInfo);
        CoreShards d = driver;
        if (d != null && d.serving()) {
          registry.markReady(settings.nodeId);
        }
        LOG.log(Level.INFO, "node {0} registered in its new ZooKeeper session", settings.nodeId);
        leadershipView();
        return;
      } catch (IllegalStateException heldByOldSession) {
        if (System.nanoTime() - deadline > 0) {
          throw heldByOldSession;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      }
    }
  }

  /**
   * Registers this node. A registration left by this node's previous, crashed incarnation lives
   * until its ZooKeeper session expires: wait for that (up to the session timeout plus a margin).
   */
  private void register() throws Exception {
    NodeInfo self =
        new NodeInfo(
            settings.nodeId,
            settings.advertisedHost(),
            peerTransport.localAddress().getPort(),
            clientServer.localAddress().getPort(),
            settings.rack);
    long deadline = System.nanoTime() + settings.zookeeperSessionTimeout.toNanos() * 2;
    while (true) {
      try {
        registry.register(self);
        selfInfo = self;
        return;
      } catch (IllegalStateException taken) {
        if (System.nanoTime() - deadline > 0) {
          throw taken;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      }
    }
  }

  /** Builds the core once the cluster's shape is known (on start or on a membership change). */
  private void tryForm() {
    synchronized (formLock) {
      formLocked();
    }
  }

  private void formLocked() {
    if (driver != null || ready.isDone() || stopped) {
      return;
    }
    try {
      ClusterShape shape = ClusterShape.read(zk, layout);
      if (shape == null) {
        List<NodeInfo> registered = registry.membersByRegistration();
        if (registered.size() < settings.initialNodes) {
          return; // wait for more members
        }
        List<ClusterShape.Member> first = new ArrayList<>();
        for (NodeInfo n : registered.subList(0, settings.initialNodes)) {
          first.add(new ClusterShape.Member(n.nodeId(), n.rack()));
        }
        first.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
        shape =
            ClusterShape.createIfAbsent(
                zk,
                layout,
                new ClusterShape(
                    settings.vnodes, settings.replicationFactor, first, settings.timing()));
      }
      shape = withTiming(shape);
      members.shape(shape);
      Ring ring = members.ring();
      CoreConfig config =
          CoreConfig.builder(ring.placement())
              .boundedDelay(settings.boundedDelay)
              .hedgeDelay(settings.hedge)
              .roundTimeout(settings.roundTimeout)
              .backoffMax(settings.backoffMax)
              .leases(new LeaseConfig(true, settings.lease, settings.clockDriftPpm))
              .modes(settings.modes())
              .build();
      PeerMessageCounts peerMessages =
          new PeerMessageCounts(
              shape.nodeIds().stream().filter(id -> id != settings.nodeId).toList());
      metrics.peersKnown(peerMessages);
      int shards = coreShards(ring.rangeCount());
      boolean coresOnLoops = settings.corePlacement.onTransportLoops(loops.loops().size(), shards);
      LOG.log(
          Level.INFO,
          "node {0}: {1} transport event loop(s), {2} consensus core shard(s) on {3}",
          settings.nodeId,
          loops.loops().size(),
          shards,
          coresOnLoops ? "the event loops" : "threads of their own");
      CoreShards d =
          new CoreShards(
              settings.nodeId,
              boot,
              config,
              shards,
              cellStore,
              engine,
              peerTransport,
              settings.tickInterval.toNanos(),
              peerMessages,
              coresOnLoops ? loops.loops() : List.of(),
              this::onFatal);
      d.start();
      RangeLeaders named = RangeLeaders.watch(zk, layout);
      rangeLeaders = named;
      members.leaders(named::holder);
      RangeLeadership l =
          new RangeLeadership(zk, layout, settings.nodeId, ring, settings.lease, leaseSink(d));
      router = new RangeRouter(settings.nodeId, ring, named, l);
      driver = d;
      leadership = l;
      // The commit log is replayed (the engine opened) and the core runs: take leadership.
      registry.markReady(settings.nodeId);
      leadershipView();
      ready.complete(null);
      LOG.log(
          Level.INFO,
          "node {0} serves; cluster nodes {1}, {2} ranges, {3} replicated here",
          settings.nodeId,
          shape.nodeIds(),
          ring.rangeCount(),
          ring.placement().nodes().contains(settings.nodeId)
              ? ring.ranges().stream().filter(r -> r.replicas().contains(settings.nodeId)).count()
              : 0);
    } catch (Exception e) {
      LOG.log(Level.ERROR, "node " + settings.nodeId + " cannot join the cluster", e);
      ready.completeExceptionally(e);
      leaveAfterRefusal();
    }
  }

  /** The Netty event loops to run: as configured (0: by the machine's CPUs). */
  private int transportThreads() {
    return settings.transportThreads == 0
        ? NodeDefaults.transportThreads(Runtime.getRuntime().availableProcessors())
        : settings.transportThreads;
  }

  /**
   * The core shards to run: as configured (0: a quarter of the CPUs), at most one per range of the
   * ring — a shard owning no range would only tick.
   */
  private int coreShards(int ranges) {
    int wanted =
        settings.coreThreads == 0
            ? NodeDefaults.coreThreads(Runtime.getRuntime().availableProcessors())
            : settings.coreThreads;
    if (wanted > ranges) {
      LOG.log(
          Level.WARNING,
          "node {0}: {1} core threads asked for, but the ring has {2} ranges; running {2}",
          settings.nodeId,
          wanted,
          ranges);
      return ranges;
    }
    return wanted;
  }

  /** Range leadership feeds the core through its loop (DESIGN.md "Lease invariant"). */
  private static RangeLeadership.Sink leaseSink(CoreShards d) {
    return new RangeLeadership.Sink() {
      @Override
      public void granted(int range, long term, boolean noEarlierLease) {
        d.input(new Input.TermGranted(range, term, noEarlierLease));
      }

      @Override
      public CompletableFuture<Boolean> release(int range, long term) {
        return d.releaseLease(range, term);
      }

      @Override
      public void renewed(int range, long term, long sentNanos) {
        d.input(new Input.LeaseRenewed(range, term, sentNanos));
      }

      @Override
      public void lost(int range) {
        d.input(new Input.LeaseLost(range));
      }

      @Override
      public void candidacy(int range, boolean candidate) {
        d.input(new Input.Candidacy(range, candidate));
      }
    };
  }

  /** A node refused by the cluster must not look like a member to clients. */
  private void leaveAfterRefusal() {
    try {
      registry.deregister(settings.nodeId);
    } catch (Exception e) {
      LOG.log(Level.WARNING, "node " + settings.nodeId + " could not deregister", e);
    }
  }

  /**
   * Refuses to serve in a cluster this node's configuration does not describe: an id outside the
   * shape, or another replication factor. The replication factor is fixed when the cluster forms
   * (the ring's replica sets, and so every quorum, follow from it); a node configured otherwise is
   * refused rather than silently following the shape, because its operator believes keys have
   * another number of copies than they have, and a warning in a log is easily missed.
   */
  /**
   * Checks this node belongs to {@code shape} as configured, publishes its T and ε into a shape
   * written before v3 (the first node of this version to start does), and checks them against the
   * shape's; returns the shape with its timing.
   */
  private ClusterShape withTiming(ClusterShape shape) throws Exception {
    checkPlacement(shape);
    if (shape.timing() == null) {
      shape = ClusterShape.publishTimingIfAbsent(zk, layout, settings.timing());
    }
    checkTiming(shape);
    return shape;
  }

  private void checkPlacement(ClusterShape shape) {
    if (shape.replicationFactor() != settings.replicationFactor) {
      throw new IllegalStateException(
          "node "
              + settings.nodeId
              + " is configured with replication factor "
              + settings.replicationFactor
              + " (config key ring.replicationFactor, builder replicationFactor) but cluster "
              + settings.clusterId
              + " formed with replication factor "
              + shape.replicationFactor()
              + ", fixed since: set ring.replicationFactor to "
              + shape.replicationFactor());
    }
    if (!shape.contains(settings.nodeId)) {
      throw new IllegalStateException(
          "node "
              + settings.nodeId
              + " is not one of cluster "
              + settings.clusterId
              + "'s nodes "
              + shape.nodeIds()
              + ": the cluster formed from its first "
              + shape.nodeIds().size()
              + " registered nodes, and this version cannot add or replace a node");
    }
  }

  private void checkTiming(ClusterShape shape) {
    if (!settings.timing().equals(shape.timing())) {
      // Clients time the fence after an unknown create with the published T and ε: a node that
      // ran a longer T could let such a create take effect after that fence.
      throw new IllegalStateException(
          "node "
              + settings.nodeId
              + " is configured with "
              + settings.timing()
              + " but cluster "
              + settings.clusterId
              + " runs with "
              + shape.timing()
              + " (published when it formed): set consensus.boundedDelay and"
              + " consensus.clockSkewBound (builder boundedDelay, clockSkewBound) to the"
              + " cluster's values");
    }
  }

  /**
   * Waits until the node serves (the cluster formed and its core runs).
   *
   * @throws IllegalStateException if the node cannot join (cluster size, unknown node id) or the
   *     wait timed out
   */
  public void awaitReady(Duration timeout) {
    try {
      ready.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "node "
              + settings.nodeId
              + " not serving after "
              + timeout
              + ": "
              + members.live().size()
              + " of "
              + settings.initialNodes
              + " initial members registered",
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void onPeerMessage(int from, io.frsm.consensus.core.Message message) {
    CoreShards d = driver;
    if (d != null) {
      d.receive(from, message); // before the cluster formed, drop: Paxos tolerates lost messages
    }
  }

  private CompletableFuture<OperationResponse> onClientRequest(OperationRequest request) {
    String refusal = limits.refusal(request.operation());
    if (refusal != null) {
      return CompletableFuture.completedFuture(new OperationResponse.Invalid(refusal));
    }
    long tau = request.invokedAtMicros() == 0 ? nowMicros() : request.invokedAtMicros();
    return serveClient(request.operation(), tau, MAX_REROUTES);
  }

  /**
   * A thin client's operation: redirected when another node leads the key's range, else run here;
   * routed again (up to {@code reroutesLeft} times) if this node gives the range up before
   * coordinating it.
   */
  private CompletableFuture<OperationResponse> serveClient(
      Operation operation, long tau, int reroutesLeft) {
    RangeRouter r = router;
    if (r != null) {
      int coordinator = r.coordinatorOf(operation.key());
      if (coordinator != settings.nodeId) {
        InetSocketAddress leader = members.clientAddress(coordinator);
        if (leader != null && leader.getPort() > 0) {
          metrics.routed(NodeMetrics.Routed.REDIRECTED);
          return CompletableFuture.completedFuture(
              new OperationResponse.Redirect(leader.getHostString(), leader.getPort()));
        }
        return CompletableFuture.completedFuture(
            new OperationResponse.Completed(
                new Outcome.NotExecuted(
                    "node " + coordinator + " leads the key's range but its address is unknown")));
      }
    }
    return submit(operation, tau, reroutesLeft > 0)
        .thenCompose(
            outcome ->
                movedAway(outcome)
                    ? serveClient(operation, tau, reroutesLeft - 1)
                    : CompletableFuture.completedFuture(new OperationResponse.Completed(outcome)));
  }

  /**
   * An embedded client's operation: run here if this node coordinates the key, else forwarded to
   * the node that does (following its redirects), with the caller's τ.
   */
  private CompletableFuture<Outcome> route(Operation operation, long invokedAtMicros) {
    return route(operation, invokedAtMicros, MAX_REROUTES);
  }

  /**
   * An embedded client's operation: run here when this node should coordinate the key, else
   * forwarded to the range's leader; routed again (up to {@code reroutesLeft} times) if this node
   * gives the range up before coordinating it.
   */
  private CompletableFuture<Outcome> route(
      Operation operation, long invokedAtMicros, int reroutesLeft) {
    RangeRouter r = router;
    if (r == null) {
      // Not serving: answered "not executed".
      return submit(operation, invokedAtMicros, false);
    }
    int coordinator = r.coordinatorOf(operation.key());
    if (coordinator == settings.nodeId) {
      return submit(operation, invokedAtMicros, reroutesLeft > 0)
          .thenCompose(
              outcome ->
                  movedAway(outcome)
                      ? route(operation, invokedAtMicros, reroutesLeft - 1)
                      : CompletableFuture.completedFuture(outcome));
    }
    InetSocketAddress target = members.clientAddress(coordinator);
    if (target == null || target.getPort() == 0) {
      return CompletableFuture.completedFuture(
          new Outcome.NotExecuted(
              "node " + coordinator + " leads the key's range but its address is unknown"));
    }
    metrics.routed(NodeMetrics.Routed.FORWARDED);
    long startNanos = System.nanoTime();
    return forward(new OperationRequest(operation, invokedAtMicros), target, MAX_REDIRECTS)
        .whenComplete(
            (outcome, error) -> {
              if (outcome != null) {
                metrics.forwardedEnded(operation, outcome, System.nanoTime() - startNanos);
              }
            });
  }

  private CompletableFuture<Outcome> forward(
      OperationRequest request, InetSocketAddress target, int redirectsLeft) {
    if (stopped) {
      return CompletableFuture.completedFuture(
          new Outcome.NotExecuted("node " + settings.nodeId + " is stopped"));
    }
    ClientProtocolClient connection;
    try {
      connection =
          forwarding.computeIfAbsent(
              target, a -> ClientProtocolClient.connect(a, transportConfig, loops));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          new Outcome.NotExecuted("cannot reach " + target + ": " + e));
    }
    Duration timeout = settings.boundedDelay.plus(settings.roundTimeout.multipliedBy(10));
    return connection
        .call(request, timeout)
        .thenCompose(
            response -> {
              if (response instanceof OperationResponse.Completed c) {
                return CompletableFuture.completedFuture(c.outcome());
              }
              if (response instanceof OperationResponse.Invalid invalid) {
                return CompletableFuture.completedFuture(
                    new Outcome.NotExecuted("refused by " + target + ": " + invalid.reason()));
              }
              OperationResponse.Redirect redirect = (OperationResponse.Redirect) response;
              if (redirectsLeft == 0) {
                return CompletableFuture.completedFuture(
                    new Outcome.NotExecuted("too many redirects, last to " + redirect));
              }
              return forward(
                  request,
                  new InetSocketAddress(redirect.leaderHost(), redirect.leaderPort()),
                  redirectsLeft - 1);
            });
  }

  /**
   * Submits to the core and records the operation's latency, outcome and (for a served get) read
   * mode once it is answered. {@code mayReroute}: the caller routes the operation again if the core
   * answers that this node gave the key's range up ({@link #movedAway}); such an answer is counted
   * as rerouted, not as an outcome. Otherwise it is answered as the plain "not executed" it is.
   */
  private CompletableFuture<Outcome> submit(
      Operation operation, long invokedAtMicros, boolean mayReroute) {
    long startNanos = System.nanoTime();
    return submitToCore(operation, invokedAtMicros)
        .thenApply(
            answer -> {
              Outcome outcome = answer.outcome();
              if (movedAway(outcome)) {
                if (mayReroute) {
                  metrics.routed(NodeMetrics.Routed.REROUTED);
                  return outcome;
                }
                outcome = new Outcome.NotExecuted(((Outcome.NotExecuted) outcome).reason());
              }
              metrics.operationEnded(
                  operation, outcome, answer.readMode(), System.nanoTime() - startNanos);
              return outcome;
            });
  }

  /** The core gave the operation back untried: this node gave the key's range up meanwhile. */
  private static boolean movedAway(Outcome outcome) {
    return outcome instanceof Outcome.NotExecuted n && n.rangeMoved();
  }

  private CompletableFuture<CoreAnswer> submitToCore(Operation operation, long invokedAtMicros) {
    CoreShards d = driver;
    if (d == null) {
      return CompletableFuture.completedFuture(
          CoreAnswer.of(
              new Outcome.NotExecuted(
                  stopped
                      ? "node " + settings.nodeId + " is stopped"
                      : "node "
                          + settings.nodeId
                          + " does not serve yet: the cluster has not formed")));
    }
    return d.submit(operation, invokedAtMicros);
  }

  private static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  private void onFatal(Throwable error) {
    failed = true;
    // Leave the cluster so clients route elsewhere, and every range latch so successors take the
    // ranges over (after the lease wait: the stopped cores mark no release clean); not on the
    // core's thread (ZooKeeper I/O).
    Thread leave =
        new Thread(
            () -> {
              try {
                registry.deregister(settings.nodeId);
              } catch (Exception e) {
                LOG.log(Level.WARNING, "could not deregister after a fatal error", e);
              }
              RangeLeadership l = leadership;
              if (l != null && leadershipEnded.compareAndSet(false, true)) {
                l.close();
              }
            },
            "frsm-node-" + settings.nodeId + "-leave");
    leave.setDaemon(true);
    leave.start();
  }

  /**
   * A client whose operations this node coordinates (τ = the caller's clock). Each call returns a
   * new client with its own session ordering; close it when done (closing the node closes it too).
   */
  public FrsmClient client() {
    if (!started || stopped) {
      throw new IllegalStateException("node " + settings.nodeId + " is not running");
    }
    long createSettleNanos =
        settings.boundedDelay.plus(settings.clockSkewBound.multipliedBy(2)).toNanos();
    EmbeddedClient[] self = new EmbeddedClient[1];
    EmbeddedClient client =
        new EmbeddedClient(
            limits, createSettleNanos, sessionCounters, this::route, () -> clients.remove(self[0]));
    self[0] = client;
    clients.add(client);
    return client;
  }

  public int nodeId() {
    return settings.nodeId;
  }

  /** This incarnation's boot count (1 on the first start). */
  public int boot() {
    return boot;
  }

  /** The bound peer address (the actual port when 0 was asked). */
  public InetSocketAddress peerAddress() {
    return peerTransport.localAddress();
  }

  /** The bound client protocol address (the actual port when 0 was asked). */
  public InetSocketAddress clientAddress() {
    return clientServer.localAddress();
  }

  /**
   * The consensus core's counters (warm/cold CAS, reads by mode, failures), as of its last tick: at
   * most one tick interval old. Zero before the node serves; they start again at zero with each
   * start of the node.
   */
  public CoreStats coreStats() {
    NodeMetrics m = metrics;
    return m == null ? CoreStats.ZERO : m.stats();
  }

  /**
   * Whether the node serves client operations now: the cluster formed, its core runs, and it is
   * neither stopping nor stopped after a fatal error. What {@code /health} reports in {@code frsm
   * server}.
   */
  public boolean serving() {
    CoreShards d = driver;
    return !stopped && d != null && d.serving();
  }

  /**
   * Gets this node's current incarnation served on the callers' threads (CallerThreadReads), part
   * of {@link CoreStats#readsLeaderOnly()}; for tests.
   */
  long callerThreadReads() {
    CoreShards d = driver;
    return d == null ? 0 : d.callerThreadReads();
  }

  /** The registry holding this node's and its engine's meters. */
  public MeterRegistry meterRegistry() {
    return settings.meterRegistry;
  }

  /** Ranges whose term this node holds now (0 before it serves). */
  public int rangesLed() {
    RangeLeadership l = leadership;
    return l == null || stopped ? 0 : l.rangesHeld();
  }

  /** Whether this node holds the term of ring range {@code range} now. */
  /**
   * Terms this node handed over on purpose and marked released, and terms it won from a released
   * predecessor without the lease wait (diagnostics and tests; also {@code frsm.lease.handovers}).
   */
  public long[] leaseHandovers() {
    RangeLeadership l = leadership;
    return l == null ? new long[2] : new long[] {l.releasesMarked(), l.termsAfterRelease()};
  }

  public boolean leadsRange(int range) {
    RangeLeadership l = leadership;
    return l != null && !stopped && l.holds(range);
  }

  /** The cluster's ring (fixed with its shape), or null before the cluster formed. */
  public Ring ring() {
    return members.ring();
  }

  /**
   * Test hook: makes ZooKeeper expire this node's session as if the node had been cut off for
   * longer than the session timeout. The node must register again and re-enter leadership.
   */
  void expireZooKeeperSession() throws Exception {
    zk.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
  }

  /**
   * Test hook: client operations this node's core holds now (admitted, not yet answered), e.g.
   * waiting for the range's lease. Lets a test act while an operation is in flight, not before.
   */
  int openOperations() {
    CoreShards d = driver;
    return d == null ? 0 : d.openOperations();
  }

  /** The engine, for operators' tools and tests. */
  public LsmEngine engine() {
    return engine;
  }

  /**
   * Graceful stop: refuses new client operations, lets those running finish (up to the drain
   * timeout), deregisters, stops the transports and closes the engine (which flushes its memtables,
   * so the next start replays little).
   */
  @Override
  public void close() {
    shutdown(true, null);
  }

  /**
   * Stops at once as if the process were killed with SIGKILL: no draining, no deregistration, no
   * flush. Everything acknowledged is in the commit log and survives a restart on the same
   * directories. For failure drills (the demo) and tests.
   */
  public void kill() {
    shutdown(false, LsmEngine::kill);
  }

  private synchronized void shutdown(boolean graceful, Consumer<LsmEngine> engineKiller) {
    CoreShards d;
    synchronized (formLock) {
      if (stopped) {
        return;
      }
      stopped = true;
      d = driver;
    }
    ready.completeExceptionally(new IllegalStateException("node stopped"));
    if (graceful && d != null) {
      d.stopAccepting();
      long deadline = System.nanoTime() + settings.drainTimeout.toNanos();
      while (d.openOperations() > 0 && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
      }
    }
    List<Runnable> steps = new ArrayList<>();
    RangeLeadership l = leadership;
    if (l != null) {
      // Graceful: leave every latch (successors start at once); killed: just stop renewing (the
      // session's end removes the latch nodes).
      steps.add(
          () -> {
            if (leadershipEnded.compareAndSet(false, true)) { // a fatal error may have ended it
              if (graceful) {
                l.close();
              } else {
                l.abandon();
              }
            }
          });
    }
    steps.add(() -> zkChores.shutdownNow());
    if (zk != null) {
      steps.add(() -> zk.getConnectionStateListenable().removeListener(sessionWatcher));
    }
    steps.add(() -> close(rangeLeaders));
    if (graceful && registry != null) {
      steps.add(
          () -> {
            try {
              registry.deregister(settings.nodeId);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
    }
    steps.add(() -> close(registry));
    steps.add(() -> close(zk));
    steps.add(() -> close(clientServer));
    steps.add(
        () -> {
          forwarding.values().forEach(ClientProtocolClient::close);
          forwarding.clear();
        });
    steps.add(
        () -> {
          if (d != null) {
            d.stop();
          }
        });
    steps.add(() -> close(peerTransport));
    steps.add(() -> close(loops));
    steps.add(() -> clients.forEach(EmbeddedClient::close));
    steps.add(() -> close(metrics));
    steps.add(
        () -> {
          if (engine != null) {
            if (engineKiller != null) {
              engineKiller.accept(engine);
            } else {
              engine.close();
            }
          }
        });
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "node " + settings.nodeId + ": error while stopping", e);
      }
    }
    LOG.log(Level.INFO, "node {0} stopped ({1})", settings.nodeId, graceful ? "closed" : "killed");
  }

  private static void close(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing " + c + " failed", e);
    }
  }

  /** The validated settings this node runs with (tests check the builder's mapping here). */
  NodeSettings settings() {
    return settings;
  }
}
