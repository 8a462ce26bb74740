package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.storage.CachingCellStore;
import io.frsm.consensus.storage.LsmCellStore;
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
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
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
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
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
 * <p><b>This version runs clusters of exactly three nodes</b> with replication factor 3: every key
 * is replicated on all three, leases are off (every node may coordinate any key; reads are quorum
 * reads), and the ring only tells thin clients which node to prefer for a key. The cluster forms
 * when three nodes are registered; its replica set is then stored in ZooKeeper ({@link
 * ClusterShape}) and a fourth node is refused.
 */
public final class FrsmNode implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());
  static final int CLUSTER_SIZE = 3;

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
  private NettyPeerTransport peerTransport;
  private ClientProtocolServer clientServer;
  private CuratorFramework zk;
  private MembershipRegistry registry;
  private volatile NodeMetrics metrics;
  private volatile CoreDriver driver;
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
      metrics = new NodeMetrics(settings.meterRegistry, () -> driver);
      engine = LsmEngine.open(lsmConfig, NioFileSystem.INSTANCE, settings.meterRegistry);
      // After the engine opened (so a damaged directory fails before a boot is spent) and before
      // anything is sent: no ballot of an earlier incarnation can be reused.
      boot = BootCounter.next(settings.dataDirectory);
      cellStore = new CachingCellStore(new LsmCellStore(engine), settings.clockCacheBytes);
      loops = TransportEventLoops.create(settings.transportThreads, true);
      TransportConfig transportConfig = TransportConfig.builder(settings.clusterId).build();
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
      checkMember(formed);
    }
    register();
    members.watch(registry, live -> tryForm());
    tryForm();
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
        Set<Integer> live = members.live();
        if (live.size() < CLUSTER_SIZE) {
          return; // wait for more members
        }
        if (live.size() > CLUSTER_SIZE) {
          throw new IllegalStateException(unsupportedSize(live.size()));
        }
        shape =
            ClusterShape.createIfAbsent(
                zk, layout, new ClusterShape(live.stream().sorted().toList(), settings.vnodes));
      }
      checkMember(shape);
      members.shape(shape);
      CoreConfig config =
          CoreConfig.defaults(shape.replicas())
              .withTimings(
                  settings.boundedDelay.toNanos() / 1_000,
                  settings.hedge.toNanos(),
                  settings.roundTimeout.toNanos(),
                  settings.backoffMax.toNanos());
      PeerMessageCounts peerMessages =
          new PeerMessageCounts(
              shape.replicas().stream().filter(id -> id != settings.nodeId).toList());
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
      driver = d;
      ready.complete(null);
      LOG.log(Level.INFO, "node {0} serves; replica set {1}", settings.nodeId, shape.replicas());
    } catch (Exception e) {
      LOG.log(Level.ERROR, "node " + settings.nodeId + " cannot join the cluster", e);
      ready.completeExceptionally(e);
    }
  }

  private void checkMember(ClusterShape shape) {
    if (shape.replicas().size() != CLUSTER_SIZE) {
      throw new IllegalStateException(unsupportedSize(shape.replicas().size()));
    }
    if (!shape.replicas().contains(settings.nodeId)) {
      throw new IllegalStateException(
          "node "
              + settings.nodeId
              + " is not one of cluster "
              + settings.clusterId
              + "'s replicas "
              + shape.replicas()
              + ": this version runs exactly "
              + CLUSTER_SIZE
              + " nodes and cannot add or replace one");
    }
  }

  private static String unsupportedSize(int size) {
    return "this version supports clusters of exactly "
        + CLUSTER_SIZE
        + " nodes (replication factor 3, every key on every node); found "
        + size;
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
              + CLUSTER_SIZE
              + " members registered",
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
    long tau = request.invokedAtMicros() == 0 ? nowMicros() : request.invokedAtMicros();
    return submit(request.operation(), tau).thenApply(OperationResponse.Completed::new);
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
        new EmbeddedClient(limits, createSettleNanos, this::submit, () -> clients.remove(self[0]));
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
      s.rack = Objects.requireNonNull(rack, "rack");
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
