package io.frsm.server.node;

import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.frsm.server.zk.ZooKeeperTls;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * This node's membership in ZooKeeper: the Curator client and its session, the node's member record
 * and ready marker (registered again in a new session after the old one expired), and the watches
 * that keep {@link ClusterMembers} current. Tells a {@link Listener} what changed, and redials a
 * peer that (re)appeared.
 *
 * <p>Lifecycle: {@link #connect}, {@link #register}, {@link #watch}, then the stop steps in the
 * order the node runs them. Watch callbacks arrive on ZooKeeper's watch threads; registering again
 * runs on a thread of its own, so a slow retry never holds a watch thread.
 */
final class NodeMembership {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  /** Hears the view range leadership decides by. */
  @FunctionalInterface
  interface LeadershipView {
    /**
     * Who is live, who is ready (counting this node ready once it serves), and per ready node the
     * ranges it does not compete for (as its marker says; this node's own set is its leadership's
     * to know first). Only once both watches reported: an earlier view would be partial.
     */
    void changed(Set<Integer> live, Set<Integer> ready, Map<Integer, Set<Integer>> unreachable);
  }

  private final int self;
  private final String connectString;
  private final Duration sessionTimeout;
  private final ZooKeeperCredential credential;
  private final ZooKeeperCredential reader;
  private final ZooKeeperTls tls;
  private final java.nio.file.Path dataDirectory;
  private final ZkLayout layout;
  private final ClusterMembers members;
  private final BooleanSupplier serving;
  private final BooleanSupplier stopped;
  private final IntConsumer redialPeer;
  private final ExecutorService chores;
  private final ConnectionStateListener sessionWatcher = this::onConnectionState;

  private CuratorFramework zk;
  private MembershipRegistry registry;
  private volatile LeadershipView leadershipView;
  private volatile NodeInfo registeredAs;

  /**
   * The ranges this node does not compete for (it cannot reach a quorum of their replicas), as last
   * told by its leadership: what its ready marker says once {@link #writeUnreachable} ran.
   */
  private volatile Set<Integer> unreachableRanges = Set.of();

  /** Set once the cores stopped on a fatal error: the node never registers or leads again. */
  private volatile boolean failed;

  /** The live members as of the last membership change; guarded by itself. */
  private final Set<Integer> lastLive = new HashSet<>();

  /**
   * @param credential the identity the session authenticates with and guards its znodes for; null:
   *     none, every znode open to anyone ({@code security.insecure} only)
   * @param reader an identity granted read access to this node's znodes, or null (only with a
   *     {@code credential})
   * @param tls TLS to ZooKeeper, or null: plaintext
   * @param dataDirectory where the session is recorded ({@link PreviousSession}); this node holds
   *     its {@link DataDirectoryLock}
   * @param serving whether this node's core runs and serves (it then counts itself ready)
   * @param stopped whether the node is stopping or stopped (it then never registers again)
   * @param redialPeer dials a peer now, skipping the rest of its reconnect back-off
   */
  NodeMembership(
      int self,
      String connectString,
      Duration sessionTimeout,
      ZooKeeperCredential credential,
      ZooKeeperCredential reader,
      ZooKeeperTls tls,
      java.nio.file.Path dataDirectory,
      ZkLayout layout,
      ClusterMembers members,
      BooleanSupplier serving,
      BooleanSupplier stopped,
      IntConsumer redialPeer) {
    this.self = self;
    this.connectString = connectString;
    this.sessionTimeout = sessionTimeout;
    this.credential = credential;
    this.reader = reader;
    this.tls = tls;
    this.dataDirectory = dataDirectory;
    this.layout = layout;
    this.members = members;
    this.serving = serving;
    this.stopped = stopped;
    this.redialPeer = redialPeer;
    this.chores =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-zk-chores");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Connects to ZooKeeper (authenticated with the credential, if any), guards znodes an earlier
   * unauthenticated node left open ({@link ZooKeeperAccess#secureExisting}), and opens the member
   * registry.
   *
   * @throws IllegalStateException if ZooKeeper is not reachable within the session timeout, or the
   *     cluster's znodes belong to another identity
   */
  void connect() throws Exception {
    int sessionMs = (int) sessionTimeout.toMillis();
    zk =
        ZooKeeperTls.apply(ZooKeeperAccess.builder(connectString, credential, reader), tls)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.min(sessionMs, 15_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 10))
            .build();
    zk.start();
    if (!zk.blockUntilConnected(sessionMs, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "cannot reach ZooKeeper at "
              + connectString
              + " within "
              + sessionMs
              + " ms; the node dialed it "
              + ZooKeeperTls.connectHint(tls));
    }
    if (credential != null) {
      ZooKeeperAccess.secureExisting(
          zk, layout, credential, ZooKeeperAccess.acl(credential, reader));
    } else {
      LOG.log(
          Level.WARNING,
          "node {0}: no zookeeper.credentialFile: this node''s znodes are open to anyone who reaches"
              + " ZooKeeper {1}",
          self,
          connectString);
    }
    registry = new MembershipRegistry(zk, layout);
    PreviousSession.Saved previous = PreviousSession.read(dataDirectory);
    if (previous != null && holdsMemberRecord(previous.id())) {
      PreviousSession.end(previous, connectString, sessionTimeout, tls, self);
    }
    recordSession();
  }

  /**
   * Whether session {@code id} (not this one) still holds this node's member record: only then is
   * it worth ending — a session that ended already (a graceful stop, an expiry) is left alone
   * rather than reattached to, which ZooKeeper's client would log as an error.
   */
  private boolean holdsMemberRecord(long id) throws Exception {
    if (id == currentSession().id()) {
      return false;
    }
    org.apache.zookeeper.data.Stat stat = zk.checkExists().forPath(layout.member(self));
    return stat != null && stat.getEphemeralOwner() == id;
  }

  private PreviousSession.Saved currentSession() throws Exception {
    org.apache.zookeeper.ZooKeeper client = zk.getZookeeperClient().getZooKeeper();
    return new PreviousSession.Saved(client.getSessionId(), client.getSessionPasswd());
  }

  /**
   * Records the current session for the next start to end ({@link PreviousSession}); a failure only
   * costs that start the wait for this session's expiry.
   */
  private void recordSession() {
    try {
      PreviousSession.record(dataDirectory, currentSession());
    } catch (Exception e) {
      LOG.log(
          Level.WARNING,
          "node {0}: its ZooKeeper session was not recorded in {1} ({2}): after a crash, its"
              + " restart waits for the session to expire",
          self,
          dataDirectory,
          e.toString());
    }
  }

  /** The connected client. REQUIRES: {@link #connect} returned. */
  CuratorFramework zooKeeper() {
    return zk;
  }

  /** The member registry. REQUIRES: {@link #connect} returned. */
  MembershipRegistry registry() {
    return registry;
  }

  /**
   * Registers this node. A registration left by this node's previous, crashed incarnation lives
   * until its ZooKeeper session expires: wait for that (up to twice the session timeout).
   *
   * @throws IllegalStateException if another live process holds this node id
   */
  void register(NodeInfo info) throws Exception {
    long deadline = System.nanoTime() + sessionTimeout.toNanos() * 2;
    while (true) {
      try {
        registry.register(info);
        registeredAs = info;
        return;
      } catch (IllegalStateException taken) {
        if (System.nanoTime() - deadline > 0) {
          throw taken;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      }
    }
  }

  /**
   * Starts watching the session (to register again after it expired), the members and the ready
   * markers. From now on {@code membersChanged} runs after every change of the live members (on a
   * watch thread, {@link ClusterMembers} updated).
   */
  void watch(Runnable membersChanged) {
    zk.getConnectionStateListenable().addListener(sessionWatcher);
    members.watch(
        registry,
        live -> {
          membersChanged.run();
          publishLeadershipView();
          redialReappearedPeers();
        });
    members.watchReady(registry, this::publishLeadershipView);
  }

  /**
   * From now on {@code view} hears the leadership view after every change of the members or the
   * ready markers, and hears the current one now (if both watches reported).
   */
  void reportLeadershipViewTo(LeadershipView view) {
    leadershipView = view;
    publishLeadershipView();
  }

  /** Marks this node ready: its commit log is replayed and its core runs. */
  void markReady() throws Exception {
    registry.markReady(self, unreachableRanges);
  }

  /**
   * From now on this node's ready marker names {@code ranges} as the ranges it does not compete for
   * (docs/PROTOCOL.md "Step-down and the quorum watch"), so that the other replicas compete
   * instead. Written on the chores thread (in order, never on the caller's); a marker that is gone
   * gets them when the node is marked ready again. Any thread.
   */
  void publishUnreachable(Set<Integer> ranges) {
    unreachableRanges = Set.copyOf(ranges);
    try {
      chores.execute(this::writeUnreachable);
    } catch (RejectedExecutionException stopping) {
      // Shutting down: the marker goes with the session.
    }
  }

  private void writeUnreachable() {
    // Before the core serves the marker does not exist yet (markReady writes the newest set). A
    // graceful stop no longer serves but still writes: it names every range, so that the other
    // replicas compete while it hands its ranges over (docs/PROTOCOL.md "A graceful stop hands
    // off"); the marker is only changed, never made again, and goes with the session.
    if (failed || !(serving.getAsBoolean() || stopped.getAsBoolean())) {
      return;
    }
    Set<Integer> ranges = unreachableRanges; // the newest: a later call writes again anyway
    try {
      registry.markUnreachable(self, ranges);
    } catch (Exception e) {
      // ZooKeeper unreachable: the next reconnect marks the node ready again with the newest set.
      LOG.log(
          Level.INFO,
          "node {0} could not publish its unreachable ranges yet: {1}",
          self,
          e.toString());
    }
  }

  /**
   * Tells the current leadership view, if there is a listener and both watches reported. This node
   * counts itself ready as soon as it serves and is live in the view, without waiting for its watch
   * to report its own marker: other nodes may see the marker first and route the node's ranges to
   * it, and a node that did not yet count itself would tell its core it does not compete for them
   * and give those operations back (RangeRouter), to bounce between views.
   */
  private void publishLeadershipView() {
    LeadershipView l = leadershipView;
    if (l == null || !members.watchesReported()) {
      return;
    }
    Set<Integer> live = members.live();
    Set<Integer> ready = members.ready();
    if (!failed && live.contains(self) && serving.getAsBoolean()) {
      Set<Integer> withSelf = new HashSet<>(ready);
      withSelf.add(self);
      ready = withSelf;
    }
    l.changed(live, ready, members.unreachableRanges());
  }

  /**
   * A member that (re)registered — typically a node restarted after a crash — is dialled now rather
   * than after this node's reconnect back-off to it, so its first rounds as the natural leader that
   * takes its ranges back find its peers listening.
   */
  private void redialReappearedPeers() {
    Set<Integer> live = Set.copyOf(members.live());
    synchronized (lastLive) { // not the node's monitor: start and shutdown hold that one long
      for (int id : live) {
        if (id != self && !lastLive.contains(id)) {
          redialPeer.accept(id);
        }
      }
      lastLive.clear();
      lastLive.addAll(live);
    }
  }

  /**
   * After ZooKeeper expired this node's session (its registration and ready marker went with it),
   * register again in the new session; the range latches join again by themselves (RangeLatch) and
   * leases ended when the session was LOST (LeaseKeeper).
   */
  private void onConnectionState(CuratorFramework client, ConnectionState state) {
    if (state != ConnectionState.RECONNECTED || stopped.getAsBoolean()) {
      return;
    }
    try {
      chores.execute(
          () -> {
            try {
              registerAgain();
            } catch (Exception e) {
              if (!stopped.getAsBoolean()) {
                LOG.log(Level.ERROR, "node " + self + " could not register again", e);
              }
            }
          });
    } catch (RejectedExecutionException stopping) {
      // Shutting down.
    }
  }

  /**
   * Registers again in a new session. The expired session's records may outlive the client's notice
   * of the expiry (the server deletes them when it expires the session on its side, which can come
   * later): retry until they are gone, up to twice the session timeout.
   */
  private void registerAgain() throws Exception {
    long deadline = System.nanoTime() + sessionTimeout.toNanos() * 2;
    while (!stopped.getAsBoolean()) {
      if (failed) {
        return; // its cores stopped on a fatal error: it stays out until restarted
      }
      try {
        registry.reregister(registeredAs);
        if (serving.getAsBoolean()) {
          registry.markReady(self, unreachableRanges);
        }
        LOG.log(Level.INFO, "node {0} registered in its new ZooKeeper session", self);
        recordSession();
        publishLeadershipView();
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
   * The cores stopped on a fatal error: from now on this node never registers again nor counts
   * itself ready. It deregisters, so clients route elsewhere, then runs {@code thenLeave} (ending
   * range leadership) — on a thread of its own, as the caller is the core's (no ZooKeeper I/O
   * there).
   */
  void leaveForGood(Runnable thenLeave) {
    failed = true;
    Thread leave =
        new Thread(
            () -> {
              try {
                deregister();
              } catch (Exception e) {
                LOG.log(Level.WARNING, "could not deregister after a fatal error", e);
              }
              thenLeave.run();
            },
            "frsm-node-" + self + "-leave");
    leave.setDaemon(true);
    leave.start();
  }

  /** Removes this node's member record (a no-op when it is gone already). */
  void deregister() throws Exception {
    if (registry != null) {
      registry.deregister(self);
    }
  }

  /** Stop step: no more registering again. */
  void stopChores() {
    chores.shutdownNow();
  }

  /** Stop step: session changes are no longer watched. */
  void stopWatchingSession() {
    if (zk != null) {
      zk.getConnectionStateListenable().removeListener(sessionWatcher);
    }
  }

  /** Stop step: the member and ready watches end. */
  void closeRegistry() {
    if (registry != null) {
      registry.close();
    }
  }

  /** Stop step: closes the session (its ephemeral records go with it). */
  void closeZooKeeper() {
    if (zk != null) {
      zk.close();
    }
  }

  /**
   * Test hook: makes ZooKeeper expire this node's session as if the node had been cut off for
   * longer than the session timeout.
   */
  void expireSession() throws Exception {
    zk.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
  }
}
