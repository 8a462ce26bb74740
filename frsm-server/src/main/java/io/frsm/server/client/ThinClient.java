package io.frsm.server.client;

import io.frsm.api.FrsmException;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.spi.ClientSettings;
import io.frsm.cell.Key;
import io.frsm.client.ClientConnections;
import io.frsm.client.RedirectFollower;
import io.frsm.client.RequestLimits;
import io.frsm.client.SessionClient;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeLeaders;
import io.frsm.server.zk.ZkLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The thin client: finds the cluster's members, its shape and each range's leader in ZooKeeper
 * (watched), builds the same ring as the nodes, and sends each key's operation to its range's
 * current leader over the client protocol (one connection per node), falling back to the key's
 * other live replicas (natural leader first) when the leader is unknown or down. A node that does
 * not lead the key answers with a redirect to the one it believes does.
 *
 * <ul>
 *   <li>τ is left to the first node (its arrival time), as client clocks are not trusted.
 *   <li>{@code Redirect} answers are followed (at most {@value #MAX_REDIRECTS} times).
 *   <li>A call that was definitely not executed ({@link NotExecutedException}: never sent, the node
 *       is down or refused it before running it) is tried on the next candidate node; anything else
 *       ends the call. A mutation that timed out after it was sent fails {@code
 *       OutcomeUnknownException}; the key is then fenced before its next operation. It is never
 *       sent to another node: that could apply it twice.
 *   <li>The fence after a create with an unknown outcome waits {@code T + 2ε} of the cluster, read
 *       from its shape ({@link ClusterTiming}); only a cluster formed before the shape carried them
 *       (and not yet joined by a node of this version, which publishes its own) leaves the client
 *       with the nodes' defaults.
 * </ul>
 */
public final class ThinClient extends SessionClient {
  static final int MAX_REDIRECTS = 3;

  /** How often a shape without timing (written before v3) is read again, in case it got one. */
  private static final long SHAPE_REREAD_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ZkLayout layout;
  private final Duration operationTimeout;
  private final CuratorFramework zk;
  private final MembershipRegistry registry;
  private RangeLeaders rangeLeaders;
  private final ClusterMembers members;
  private volatile long nextShapeReadNanos = System.nanoTime();
  private final TransportEventLoops loops;
  private final TransportConfig transportConfig;
  private final ClientConnections connections;
  private final RedirectFollower redirects;
  private volatile boolean closed;

  private ThinClient(ClientSettings settings, ClusterMembers members) throws Exception {
    super(RequestLimits.DEFAULTS, () -> timingOf(members).createSettle().toNanos());
    this.members = members;
    this.layout = new ZkLayout(settings.clusterId());
    this.operationTimeout = settings.operationTimeout();
    this.transportConfig = TransportConfig.builder(settings.clusterId()).build();
    int sessionMs = (int) settings.zookeeperSessionTimeout().toMillis();
    this.zk =
        CuratorFrameworkFactory.builder()
            .connectString(settings.zookeeper())
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.min(sessionMs, 15_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 10))
            .build();
    zk.start();
    this.loops = TransportEventLoops.create(1, true);
    this.connections = new ClientConnections(transportConfig, loops);
    this.redirects =
        new RedirectFollower(
            (target, request) -> connections.to(target).call(request, operationTimeout));
    try {
      if (!zk.blockUntilConnected(sessionMs, TimeUnit.MILLISECONDS)) {
        throw new FrsmException(
            "cannot reach ZooKeeper at " + settings.zookeeper() + " within " + sessionMs + " ms");
      }
      this.registry = new MembershipRegistry(zk, layout);
      members.update(registry.members());
      members.watch(registry, live -> connections.retainOnly(members.liveClientAddresses()));
      members.watchReady(registry, () -> {});
      this.rangeLeaders = RangeLeaders.watch(zk, layout);
      members.leaders(rangeLeaders::holder);
      refreshShape();
    } catch (Exception | Error e) {
      loops.close();
      zk.close();
      closeSessions();
      throw e;
    }
  }

  /** Connects to the cluster {@code settings} name. */
  public static ThinClient connect(ClientSettings settings) {
    try {
      return new ThinClient(settings, new ClusterMembers());
    } catch (FrsmException e) {
      throw e;
    } catch (Exception e) {
      throw new FrsmException("cannot connect to cluster " + settings.clusterId() + ": " + e, e);
    }
  }

  /**
   * The ring needs the cluster's shape, stored once when the cluster formed; read until found. A
   * shape without timing may still get one (the first node of this version publishes it): read
   * again at most once per {@link #SHAPE_REREAD_NANOS}, in the background, since the caller may be
   * a connection's event loop (a session starts a key's next call on the thread that ended the
   * previous one).
   */
  private void refreshShape() throws Exception {
    ClusterShape known = members.shape();
    if (known != null && known.timing() != null) {
      return;
    }
    if (known == null) {
      ClusterShape shape = ClusterShape.read(zk, layout);
      if (shape != null) {
        members.shape(shape);
      }
      return;
    }
    long now = System.nanoTime();
    if (now - nextShapeReadNanos >= 0) {
      nextShapeReadNanos = now + SHAPE_REREAD_NANOS;
      ClusterShape.readInBackground(zk, layout, members::shape);
    }
  }

  /**
   * The T and ε this client times the fence after an unknown create with: the cluster's, once its
   * shape is known; the nodes' defaults before, or for a cluster whose shape carries none.
   */
  public ClusterTiming clusterTiming() {
    return timingOf(members);
  }

  private static ClusterTiming timingOf(ClusterMembers members) {
    ClusterShape shape = members.shape();
    return shape != null && shape.timing() != null ? shape.timing() : ClusterTiming.DEFAULTS;
  }

  @Override
  protected long invocationMicros() {
    return 0; // the first node stamps the arrival time
  }

  @Override
  protected CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros) {
    if (closed) {
      return CompletableFuture.failedFuture(new NotExecutedException("client closed"));
    }
    try {
      refreshShape();
    } catch (Exception e) {
      // Routing without the ring still reaches a live member, which redirects to the leader.
    }
    List<Integer> candidates = members.route(Key.wrap(operation.key().bytesUnsafe()));
    if (candidates.isEmpty()) {
      return CompletableFuture.failedFuture(
          new NotExecutedException("no member of the cluster is registered in ZooKeeper"));
    }
    return attempt(new OperationRequest(operation, 0), candidates, 0, MAX_REDIRECTS);
  }

  private CompletableFuture<ClientOutcome> attempt(
      OperationRequest request, List<Integer> candidates, int index, int redirectsLeft) {
    InetSocketAddress target = members.clientAddress(candidates.get(index));
    return redirects
        .send(request, target, redirectsLeft)
        .thenCompose(
            reply -> {
              boolean nextCandidate = index + 1 < candidates.size();
              if (reply instanceof RedirectFollower.Answered a) {
                if (a.outcome() instanceof ClientOutcome.NotExecuted && nextCandidate) {
                  return attempt(request, candidates, index + 1, a.redirectsLeft());
                }
                return CompletableFuture.completedFuture(a.outcome());
              }
              if (reply instanceof RedirectFollower.CallFailed f) {
                if (f.cause() instanceof NotExecutedException && nextCandidate) {
                  return attempt(request, candidates, index + 1, f.redirectsLeft());
                }
                return CompletableFuture.failedFuture(f.cause());
              }
              if (reply instanceof RedirectFollower.Unreachable u) {
                return CompletableFuture.failedFuture(u.cause());
              }
              if (reply instanceof RedirectFollower.Refused r) {
                return CompletableFuture.failedFuture(new InvalidRequestException(r.reason()));
              }
              RedirectFollower.TooManyRedirects t = (RedirectFollower.TooManyRedirects) reply;
              return CompletableFuture.failedFuture(
                  new NotExecutedException("too many redirects, last to " + t.last()));
            });
  }

  /** Calls in flight fail (a mutation's outcome is then unknown); threads and sessions end. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    connections.close();
    registry.close();
    if (rangeLeaders != null) {
      rangeLeaders.close();
    }
    zk.close();
    closeSessions();
    loops.close();
  }
}
