package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.storage.CachingCellStore;
import io.frsm.consensus.storage.LsmCellStore;
import io.frsm.consensus.transport.ClientProtocolClient;
import io.frsm.consensus.transport.ClientProtocolServer;
import io.frsm.consensus.transport.NettyPeerTransport;
import io.frsm.consensus.transport.OperationRequest;
import io.frsm.consensus.transport.OperationResponse;
import io.frsm.consensus.transport.TransportConfig;
import io.frsm.consensus.transport.TransportEventLoops;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.client.RequestLimits;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeLeaders;
import io.frsm.server.zk.RangeLeadership;
import io.frsm.server.zk.ZkLayout;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One frsm node: the LSM engine, the consensus core on its own event loop ({@link CoreDriver}), the
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
 * replication factor 3) have registered: the first ones to register, with their racks, become the
 * cluster's {@link ClusterShape}, stored in ZooKeeper and fixed from then on. Every key lives on
 * the 3 replicas of its ring range (rack-aware, natural leader first); the core gets the ring as
 * its {@link io.frsm.consensus.core.Placement}. A node outside the shape is refused with an error
 * naming the shape (this version cannot add or replace nodes).
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

  /** Replicas per range. */
  static final int REPLICATION_FACTOR = 3;

  /** Redirects a forwarded operation follows before it gives up (not executed). */
  private static final int MAX_REDIRECTS = 3;

  private final Settings settings;
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
  private volatile CoreDriver driver;
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

  private FrsmNode(Settings settings) {
    this.settings = settings;
    this.layout = new ZkLayout(settings.clusterId);
  }

  public static Builder builder() {
    return new Builder();
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
      metrics = new NodeMetrics(settings.meterRegistry, () -> driver, () -> leadership);
      engine = LsmEngine.open(lsmConfig, NioFileSystem.INSTANCE, settings.meterRegistry);
      // After the engine opened (so a damaged directory fails before a boot is spent) and before
      // anything is sent: no ballot of an earlier incarnation can be reused.
      boot = BootCounter.next(settings.dataDirectory);
      cellStore = new CachingCellStore(new LsmCellStore(engine), settings.clockCacheBytes);
      loops = TransportEventLoops.create(settings.transportThreads, true);
      transportConfig = TransportConfig.builder(settings.clusterId).build();
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
    ClusterShape formed = ClusterShape.publishTimingIfAbsent(zk, layout, settings.timing());
    if (formed != null) {
      checkMember(formed);
    }
    register();
    zk.getConnectionStateListenable().addListener(sessionWatcher);
    members.watch(
        registry,
        live -> {
          tryForm();
          leadershipView();
          dropForwardingToDepartedMembers();
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

  /** Live members or ready markers changed: the ranges this node should lead may have too. */
  private void leadershipView() {
    RangeLeadership l = leadership;
    if (l != null) {
      l.membersChanged(members.live(), members.ready());
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
      try {
        registry.reregister(selfInfo);
        if (driver != null) {
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
                new ClusterShape(settings.vnodes, REPLICATION_FACTOR, first, settings.timing()));
      }
      if (shape.timing() == null) {
        shape = ClusterShape.publishTimingIfAbsent(zk, layout, settings.timing());
      }
      checkMember(shape);
      members.shape(shape);
      Ring ring = members.ring();
      CoreConfig config =
          CoreConfig.defaults(ring.placement())
              .withTimings(
                  settings.boundedDelay.toNanos() / 1_000,
                  settings.hedge.toNanos(),
                  settings.roundTimeout.toNanos(),
                  settings.backoffMax.toNanos())
              .withLeases(new LeaseConfig(true, settings.lease.toNanos(), settings.clockDriftPpm))
              .withModes(settings.modes);
      PeerMessageCounts peerMessages =
          new PeerMessageCounts(
              shape.nodeIds().stream().filter(id -> id != settings.nodeId).toList());
      metrics.peersKnown(peerMessages);
      CoreDriver d =
          new CoreDriver(
              settings.nodeId,
              boot,
              config,
              cellStore,
              engine,
              cellStore,
              peerTransport,
              settings.tickInterval.toNanos(),
              peerMessages,
              this::onFatal);
      d.start();
      RangeLeaders named = RangeLeaders.watch(zk, layout);
      rangeLeaders = named;
      members.leaders(named::holder);
      RangeLeadership l =
          new RangeLeadership(zk, layout, settings.nodeId, ring, settings.lease, leaseSink(d));
      router = new RangeRouter(settings.nodeId, ring, members, named, l);
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

  /** Range leadership feeds the core through its loop (DESIGN.md "Lease invariant"). */
  private static RangeLeadership.Sink leaseSink(CoreDriver d) {
    return new RangeLeadership.Sink() {
      @Override
      public void granted(int range, long term, boolean predecessorReleased) {
        d.input(new Input.TermGranted(range, term, predecessorReleased));
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

  private void checkMember(ClusterShape shape) {
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
              + " (published when it formed): set consensus.boundedDelay and the clock skew"
              + " bound to the cluster's values");
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
    CoreDriver d = driver;
    if (d != null) {
      d.receive(from, message); // before the cluster formed, drop: Paxos tolerates lost messages
    }
  }

  private CompletableFuture<OperationResponse> onClientRequest(OperationRequest request) {
    String refusal = limits.refusal(request.operation());
    if (refusal != null) {
      return CompletableFuture.completedFuture(new OperationResponse.Invalid(refusal));
    }
    RangeRouter r = router;
    if (r != null) {
      int coordinator = r.coordinatorOf(request.operation().key());
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
    long tau = request.invokedAtMicros() == 0 ? nowMicros() : request.invokedAtMicros();
    return submit(request.operation(), tau).thenApply(OperationResponse.Completed::new);
  }

  /**
   * An embedded client's operation: run here if this node coordinates the key, else forwarded to
   * the node that does (following its redirects), with the caller's τ.
   */
  private CompletableFuture<Outcome> route(Operation operation, long invokedAtMicros) {
    RangeRouter r = router;
    if (r == null) {
      return submit(operation, invokedAtMicros); // not serving: answered "not executed"
    }
    int coordinator = r.coordinatorOf(operation.key());
    if (coordinator == settings.nodeId) {
      return submit(operation, invokedAtMicros);
    }
    InetSocketAddress target = members.clientAddress(coordinator);
    if (target == null || target.getPort() == 0) {
      return CompletableFuture.completedFuture(
          new Outcome.NotExecuted(
              "node " + coordinator + " leads the key's range but its address is unknown"));
    }
    metrics.routed(NodeMetrics.Routed.FORWARDED);
    return forward(new OperationRequest(operation, invokedAtMicros), target, MAX_REDIRECTS);
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

  /** Submits to the core and records the operation's latency and outcome once it is answered. */
  private CompletableFuture<Outcome> submit(Operation operation, long invokedAtMicros) {
    long startNanos = System.nanoTime();
    return submitToCore(operation, invokedAtMicros)
        .whenComplete(
            (outcome, error) -> {
              if (outcome != null) {
                metrics.operationEnded(operation, outcome, System.nanoTime() - startNanos);
              }
            });
  }

  private CompletableFuture<Outcome> submitToCore(Operation operation, long invokedAtMicros) {
    CoreDriver d = driver;
    if (d == null) {
      return CompletableFuture.completedFuture(
          new Outcome.NotExecuted(
              stopped
                  ? "node " + settings.nodeId + " is stopped"
                  : "node " + settings.nodeId + " does not serve yet: the cluster has not formed"));
    }
    return d.submit(operation, invokedAtMicros);
  }

  private static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  private void onFatal(Throwable error) {
    // Leave the cluster so clients route elsewhere; not on the core's thread (ZooKeeper I/O).
    Thread leave =
        new Thread(
            () -> {
              try {
                registry.deregister(settings.nodeId);
              } catch (Exception e) {
                LOG.log(Level.WARNING, "could not deregister after a fatal error", e);
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
        new EmbeddedClient(limits, createSettleNanos, this::route, () -> clients.remove(self[0]));
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
    CoreDriver d = driver;
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
    CoreDriver d;
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
      steps.add(graceful ? l::close : l::abandon);
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

  /** Validated settings. */
  private static final class Settings {
    int nodeId;
    String clusterId;
    Path dataDirectory;
    List<Path> commitLogDirectories;
    InetSocketAddress peerAddress;
    InetSocketAddress clientAddress;
    String advertisedHost;
    String zookeeper;
    Duration zookeeperSessionTimeout;
    String rack;
    Consumer<LsmConfig.Builder> lsmTweaks;
    Duration boundedDelay;
    Duration clockSkewBound;
    Duration hedge;
    Duration roundTimeout;
    Duration backoffMax;
    Duration tickInterval;
    Duration drainTimeout;
    int vnodes;
    int initialNodes;
    Duration lease;
    int clockDriftPpm;
    CoreConfig.Modes modes;
    long clockCacheBytes;
    int transportThreads;
    MeterRegistry meterRegistry;

    LsmConfig lsmConfig() {
      LsmConfig.Builder b = LsmConfig.builder(dataDirectory);
      if (commitLogDirectories != null) {
        b.commitLogDirectories(commitLogDirectories);
      }
      lsmTweaks.accept(b);
      return b.build();
    }

    /** T and ε as the cluster's shape publishes them. */
    ClusterTiming timing() {
      return new ClusterTiming(boundedDelay, clockSkewBound);
    }

    String advertisedHost() {
      if (advertisedHost != null) {
        return advertisedHost;
      }
      return peerAddress.getAddress() != null && !peerAddress.getAddress().isAnyLocalAddress()
          ? peerAddress.getAddress().getHostAddress()
          : peerAddress.getHostString();
    }
  }

  /** Builder; {@link #build()} checks every setting and names the one that is wrong. */
  public static final class Builder {
    private Integer nodeId;
    private String clusterId;
    private Path dataDirectory;
    private List<Path> commitLogDirectories;
    private InetSocketAddress peerAddress = new InetSocketAddress("127.0.0.1", 0);
    private InetSocketAddress clientAddress = new InetSocketAddress("127.0.0.1", 0);
    private String advertisedHost;
    private String zookeeper;
    private Duration zookeeperSessionTimeout = Duration.ofSeconds(10);
    private String rack = "default";
    private Consumer<LsmConfig.Builder> lsmTweaks = b -> {};
    private Duration boundedDelay = Duration.ofSeconds(5);
    private Duration clockSkewBound = Duration.ofMillis(250);
    private Duration hedge = Duration.ofMillis(20);
    private Duration roundTimeout = Duration.ofMillis(200);
    private Duration backoffMax = Duration.ofMillis(50);
    private Duration tickInterval = Duration.ofMillis(2);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private int vnodes = 16;
    private int initialNodes = 3;
    private Duration lease = Duration.ofSeconds(2);
    private int clockDriftPpm = 1_000;
    private boolean leaderOnlyReads = true;
    private double forcedColdCasShare;
    private long clockCacheBytes = 64L * 1024 * 1024;
    private int transportThreads = 2;
    private MeterRegistry meterRegistry;

    private Builder() {}

    /** Required. Unique in the cluster and stable across restarts (it is in every ballot). */
    public Builder nodeId(int id) {
      this.nodeId = id;
      return this;
    }

    /** Required: 1-64 characters of [A-Za-z0-9_.-]; equal on every node and client. */
    public Builder clusterId(String id) {
      this.clusterId = id;
      return this;
    }

    /** Required: SSTables, manifest and the boot counter. */
    public Builder dataDirectory(Path dir) {
      this.dataDirectory = dir;
      return this;
    }

    /** One directory per commit-log stripe (default {@code <data>/commitlog}). */
    public Builder commitLogDirectories(List<Path> dirs) {
      this.commitLogDirectories = List.copyOf(dirs);
      return this;
    }

    /** Where peers connect (default 127.0.0.1, port 0 = any free port). */
    public Builder peerAddress(InetSocketAddress address) {
      this.peerAddress = address;
      return this;
    }

    /** Where thin clients connect (default 127.0.0.1, port 0 = any free port). */
    public Builder clientAddress(InetSocketAddress address) {
      this.clientAddress = address;
      return this;
    }

    /** The host others reach this node at (default: the peer address's host). */
    public Builder advertisedHost(String host) {
      this.advertisedHost = host;
      return this;
    }

    /** Required: the ZooKeeper connect string. */
    public Builder zookeeper(String connectString) {
      this.zookeeper = connectString;
      return this;
    }

    /** Default 10 s. Membership ends this long after the node stops answering ZooKeeper. */
    public Builder zookeeperSessionTimeout(Duration timeout) {
      this.zookeeperSessionTimeout = timeout;
      return this;
    }

    /** The failure domain (default "default"). */
    public Builder rack(String rack) {
      this.rack = rack;
      return this;
    }

    /** Adjusts the storage engine's settings (docs/OPERATIONS.md); data and log dirs are set. */
    public Builder lsm(Consumer<LsmConfig.Builder> tweaks) {
      this.lsmTweaks = tweaks;
      return this;
    }

    /**
     * {@code T} (default 5 s): no round for an operation starts later than {@code T} after its
     * invocation; it then ends with an unknown outcome or not executed.
     */
    public Builder boundedDelay(Duration t) {
      this.boundedDelay = t;
      return this;
    }

    /** ε, the wall-clock skew bound between nodes (default 250 ms). */
    public Builder clockSkewBound(Duration epsilon) {
      this.clockSkewBound = epsilon;
      return this;
    }

    /** Round timings: hedge (20 ms), round timeout (200 ms), maximum back-off (50 ms). */
    public Builder roundTimings(Duration hedge, Duration roundTimeout, Duration backoffMax) {
      this.hedge = hedge;
      this.roundTimeout = roundTimeout;
      this.backoffMax = backoffMax;
      return this;
    }

    /** How often the core checks its timers (default 2 ms; 1-5 ms is sensible). */
    public Builder tickInterval(Duration interval) {
      this.tickInterval = interval;
      return this;
    }

    /** How long close() waits for running operations (default 10 s). */
    public Builder drainTimeout(Duration timeout) {
      this.drainTimeout = timeout;
      return this;
    }

    /** Virtual nodes per node on the ring (default 16); fixed when the cluster forms. */
    public Builder vnodes(int vnodes) {
      this.vnodes = vnodes;
      return this;
    }

    /**
     * How many registered nodes form the cluster (default 3, at least 3): the first ones to
     * register. Fixed when the cluster forms; later nodes with other ids are refused.
     */
    public Builder initialNodes(int nodes) {
      this.initialNodes = nodes;
      return this;
    }

    /**
     * {@code L}, the range lease (default 2 s): renewed every L/4; a new leader waits {@code
     * L·(1+ρ)} before its first write, so this is also most of the fail-over time after the
     * ZooKeeper session of a dead leader expired.
     */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** ρ, the bound on monotonic clock drift in parts per million (default 1000 = 10⁻³). */
    public Builder clockDriftPpm(int ppm) {
      this.clockDriftPpm = ppm;
      return this;
    }

    /**
     * Whether the range leader answers gets (and CAS that must fail) from its own store under its
     * lease (default true). False makes every read a quorum read (1 RTT) while leases still order
     * writes: for operators who would rather not rely on the clock-drift bound for reads, and for
     * the read-mode experiment.
     */
    public Builder leaderOnlyReads(boolean enabled) {
      this.leaderOnlyReads = enabled;
      return this;
    }

    /**
     * Experiments only (default 0): the share of CAS operations that run a prepare although their
     * key is warm, to vary the multi-phase fraction (the paper's Figure 16). Costs a round per
     * forced CAS, never safety. Not a configuration key.
     */
    public Builder forcedColdCasShare(double share) {
      this.forcedColdCasShare = share;
      return this;
    }

    /** The clock cache's bound (default 64 MiB). */
    public Builder clockCacheBytes(long bytes) {
      this.clockCacheBytes = bytes;
      return this;
    }

    /** Netty event-loop threads (default 2). */
    public Builder transportThreads(int threads) {
      this.transportThreads = threads;
      return this;
    }

    /** Where the engine's meters go (default: a private SimpleMeterRegistry). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = registry;
      return this;
    }

    public FrsmNode build() {
      Settings s = new Settings();
      if (nodeId == null || nodeId < 0) {
        throw new IllegalArgumentException("nodeId is required and must be >= 0, was " + nodeId);
      }
      s.nodeId = nodeId;
      new ZkLayout(clusterId); // validates the cluster id and names it in the message
      s.clusterId = clusterId;
      s.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory is required");
      s.commitLogDirectories = commitLogDirectories;
      s.peerAddress = Objects.requireNonNull(peerAddress, "peerAddress");
      s.clientAddress = Objects.requireNonNull(clientAddress, "clientAddress");
      s.advertisedHost = advertisedHost;
      if (zookeeper == null || zookeeper.isBlank()) {
        throw new IllegalArgumentException("zookeeper connect string is required");
      }
      s.zookeeper = zookeeper;
      s.zookeeperSessionTimeout = positive(zookeeperSessionTimeout, "zookeeperSessionTimeout");
      s.rack = ClusterShape.checkRack(rack);
      s.lsmTweaks = Objects.requireNonNull(lsmTweaks, "lsm");
      s.boundedDelay = positive(boundedDelay, "boundedDelay");
      s.clockSkewBound = Objects.requireNonNull(clockSkewBound, "clockSkewBound");
      if (clockSkewBound.isNegative()) {
        throw new IllegalArgumentException("clockSkewBound must be >= 0, was " + clockSkewBound);
      }
      s.hedge = positive(hedge, "hedge");
      s.roundTimeout = positive(roundTimeout, "roundTimeout");
      s.backoffMax = positive(backoffMax, "backoffMax");
      if (roundTimeout.compareTo(hedge) < 0) {
        throw new IllegalArgumentException("roundTimeout must be >= hedge");
      }
      s.tickInterval = positive(tickInterval, "tickInterval");
      s.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
      if (vnodes < 1) {
        throw new IllegalArgumentException("vnodes must be >= 1, was " + vnodes);
      }
      s.vnodes = vnodes;
      if (initialNodes < REPLICATION_FACTOR) {
        throw new IllegalArgumentException(
            "initialNodes must be >= the replication factor "
                + REPLICATION_FACTOR
                + ", was "
                + initialNodes);
      }
      s.initialNodes = initialNodes;
      s.lease = positive(lease, "lease");
      if (lease.toMillis() < 4) {
        throw new IllegalArgumentException("lease must be >= 4 ms, was " + lease);
      }
      if (clockDriftPpm < 0 || clockDriftPpm >= 100_000) {
        throw new IllegalArgumentException(
            "clockDriftPpm must be in [0, 100000), was " + clockDriftPpm);
      }
      s.clockDriftPpm = clockDriftPpm;
      s.modes = new CoreConfig.Modes(leaderOnlyReads, forcedColdCasShare);
      if (clockCacheBytes < 0) {
        throw new IllegalArgumentException("clockCacheBytes must be >= 0");
      }
      s.clockCacheBytes = clockCacheBytes;
      if (transportThreads < 1) {
        throw new IllegalArgumentException("transportThreads must be >= 1");
      }
      s.transportThreads = transportThreads;
      s.meterRegistry = meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
      s.lsmConfig(); // fail at build, naming the bad LSM key
      return new FrsmNode(s);
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
