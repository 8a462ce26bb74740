package io.frsm.client;

import io.frsm.api.FrsmException;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.spi.ClientSettings;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.SharedEventLoops;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client a service depends on: it learns the cluster from its nodes, starting at the seeds,
 * over one {@link ControlConnection}, and sends each key's operations to its range's leader over
 * the client protocol (one connection per node), falling back to the key's other live replicas
 * (natural leader first) when the leader is unknown or down. A node that does not lead the key
 * answers with a redirect to the one it believes does.
 *
 * <ul>
 *   <li>τ is left to the first node (its arrival time), as client clocks are not trusted.
 *   <li>{@code Redirect} answers are followed (at most {@value #MAX_REDIRECTS} times).
 *   <li>A call that was definitely not executed ({@link NotExecutedException}: never sent, the node
 *       is down or refused it before running it) is tried on the next candidate node; anything else
 *       ends the call. A mutation that timed out after it was sent fails {@code
 *       OutcomeUnknownException}; the key is then fenced before its next operation. It is never
 *       sent to another node: that could apply it twice. So a stale view costs a redirect or a
 *       retry of a call that never ran, never a duplicate.
 *   <li>The fence after a create with an unknown outcome waits {@code T + 2ε} of the cluster, as
 *       the nodes' topology carries it; until a node told it, the nodes' defaults ({@value
 *       #DEFAULT_CREATE_SETTLE_MILLIS} ms).
 * </ul>
 */
public final class SeedClient extends SessionClient {
  /**
   * Redirects one call follows: the first at once, the others after growing pauses (about 2 s in
   * all, {@link RedirectFollower}), enough for a range to change hands.
   */
  static final int MAX_REDIRECTS = 10;

  /** {@code T + 2ε} with the nodes' defaults (T = 5 s, ε = 250 ms). */
  static final long DEFAULT_CREATE_SETTLE_MILLIS = 5_500;

  private final Duration operationTimeout;
  private final List<InetSocketAddress> seeds;
  private final SharedEventLoops.Lease loopsLease;

  /** The network threads' executors, to tell a sync call made on one ({@link #onNetworkThread}). */
  private final List<io.netty.util.concurrent.EventExecutor> networkThreads;

  private final ClientConnections connections;
  private final RedirectFollower redirects;
  private final ControlConnection control;
  private volatile RoutingView view;
  private volatile boolean closed;

  private SeedClient(
      ClientSettings settings, List<InetSocketAddress> seeds, ChannelSecurity security) {
    super(RequestLimits.DEFAULTS, settings.observer(), settings.callbackExecutor());
    this.operationTimeout = settings.operationTimeout();
    this.seeds = seeds;
    this.view = RoutingView.ofSeeds(seeds);
    TransportConfig transportConfig =
        TransportConfig.builder(settings.clusterId())
            .keepaliveInterval(settings.keepaliveInterval())
            // A client has no listening port: its idle timeout only has to exceed the keep-alive.
            .idleTimeout(settings.keepaliveInterval().multipliedBy(3))
            .build();
    this.loopsLease =
        settings.shareEventLoops()
            ? SharedEventLoops.acquire(settings.ioThreads())
            : SharedEventLoops.own(settings.ioThreads());
    TransportEventLoops loops = loopsLease.loops();
    this.networkThreads = List.copyOf(loops.loops());
    this.connections = new ClientConnections(transportConfig, loops, security);
    this.redirects =
        new RedirectFollower(
            (target, request) -> connections.to(target).call(request, operationTimeout),
            connections.pause());
    this.control =
        new ControlConnection(
            seeds, transportConfig, loops, security, settings.connectTimeout(), this::viewChanged);
  }

  /**
   * Connects to the cluster {@code settings} describe: waits up to its connect timeout for a seed
   * (or, once one answered, any member) to tell the cluster's topology.
   *
   * @throws FrsmException if no seed answered in time
   */
  public static SeedClient connect(ClientSettings settings) {
    if (!settings.fromSeeds()) {
      throw new IllegalArgumentException("a seed client needs seeds");
    }
    ChannelSecurity security;
    try {
      security = ClientSecurity.of(settings);
    } catch (IllegalArgumentException e) {
      throw new FrsmException("client TLS settings: " + e.getMessage(), e);
    }
    SeedClient client = new SeedClient(settings, Seeds.resolve(settings.seeds()), security);
    try {
      client.control.start();
      client.control.firstView().get(settings.connectTimeout().toNanos(), TimeUnit.NANOSECONDS);
      return client;
    } catch (TimeoutException e) {
      client.close();
      throw new FrsmException(
          "no node of cluster "
              + settings.clusterId()
              + " answered at seeds "
              + settings.seeds()
              + " within "
              + settings.connectTimeout().toMillis()
              + " ms (is the cluster id right, is a seed's client port reachable, and do the"
              + " certificates match?)"
              + (client.control.lastLoss().isEmpty()
                  ? ""
                  : "; last: " + client.control.lastLoss()));
    } catch (InterruptedException e) {
      client.close();
      Thread.currentThread().interrupt();
      throw new FrsmException("interrupted while connecting", e);
    } catch (ExecutionException | RuntimeException e) {
      client.close();
      throw new FrsmException("cannot connect to cluster " + settings.clusterId() + ": " + e, e);
    }
  }

  /** On a control connection's loop. */
  private void viewChanged(TopologySnapshot topology) {
    RoutingView next = RoutingView.of(topology, seeds);
    view = next;
    topologyChanged(
        (int) topology.members().stream().filter(TopologySnapshot.Member::live).count());
    Set<InetSocketAddress> keep = new HashSet<>(next.liveAddresses());
    keep.addAll(seeds);
    connections.retainOnly(keep);
  }

  /**
   * {@code T + 2ε} of the cluster as the last view carried it, or the nodes' defaults before a node
   * told it.
   */
  @Override
  protected long createSettleNanos() {
    return createSettleNanos(view.topology());
  }

  /**
   * {@code T + 2ε} as {@code topology} carries it; the nodes' defaults for a view that carries none
   * (or no view yet).
   */
  static long createSettleNanos(TopologySnapshot topology) {
    return topology != null && topology.createSettleMicros() > 0
        ? TimeUnit.MICROSECONDS.toNanos(topology.createSettleMicros())
        : TimeUnit.MILLISECONDS.toNanos(DEFAULT_CREATE_SETTLE_MILLIS);
  }

  /**
   * How long the fence after a create with an unknown outcome waits now: the cluster's {@code T +
   * 2ε} once a node told it, the nodes' defaults before.
   */
  public Duration createSettle() {
    return Duration.ofNanos(createSettleNanos());
  }

  /** The topology the client routes by now, or null before a node told it (tests, diagnostics). */
  public TopologySnapshot topology() {
    return view.topology();
  }

  @Override
  protected long invocationMicros() {
    return 0; // the first node stamps the arrival time
  }

  @Override
  protected CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros) {
    return runOperation(operation, invokedAtMicros, 0);
  }

  @Override
  protected CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    if (closed) {
      return CompletableFuture.failedFuture(new NotExecutedException("client closed"));
    }
    List<InetSocketAddress> candidates = view.route(operation.key().bytesUnsafe());
    RedirectFollower follower = timeoutNanos == 0 ? redirects : follower(timeoutNanos);
    return attempt(follower, new OperationRequest(operation, 0), candidates);
  }

  @Override
  protected boolean onNetworkThread() {
    for (io.netty.util.concurrent.EventExecutor thread : networkThreads) {
      if (thread.inEventLoop()) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected boolean supportsTimeout() {
    return true;
  }

  /** Hops that wait {@code timeoutNanos} for each node's answer (a per-call timeout). */
  private RedirectFollower follower(long timeoutNanos) {
    Duration timeout = Duration.ofNanos(timeoutNanos);
    return new RedirectFollower(
        (target, request) -> connections.to(target).call(request, timeout), connections.pause());
  }

  private CompletableFuture<ClientOutcome> attempt(
      RedirectFollower follower, OperationRequest request, List<InetSocketAddress> candidates) {
    CompletableFuture<ClientOutcome> outcome = new CompletableFuture<>();
    attempt(follower, request, candidates, 0, MAX_REDIRECTS, outcome);
    return outcome;
  }

  /**
   * Sends to {@code candidates[index]}; completes {@code outcome}, or moves on to the next
   * candidate after a definite "not executed". One future per operation, not a stage per reply.
   */
  private void attempt(
      RedirectFollower follower,
      OperationRequest request,
      List<InetSocketAddress> candidates,
      int index,
      int redirectsLeft,
      CompletableFuture<ClientOutcome> outcome) {
    follower
        .send(request, candidates.get(index), redirectsLeft)
        .whenComplete(
            (reply, error) -> {
              try {
                if (error != null) {
                  outcome.completeExceptionally(error);
                } else {
                  replied(follower, request, candidates, index, redirectsLeft, reply, outcome);
                }
              } catch (RuntimeException | Error e) {
                outcome.completeExceptionally(e); // never leave the caller waiting
              }
            });
  }

  private void replied(
      RedirectFollower follower,
      OperationRequest request,
      List<InetSocketAddress> candidates,
      int index,
      int redirectsLeft,
      RedirectFollower.Reply reply,
      CompletableFuture<ClientOutcome> outcome) {
    boolean nextCandidate = index + 1 < candidates.size();
    if (reply instanceof RedirectFollower.Answered a) {
      if (a.outcome() instanceof ClientOutcome.NotExecuted && nextCandidate) {
        attempt(follower, request, candidates, index + 1, a.redirectsLeft(), outcome);
      } else {
        outcome.complete(a.outcome());
      }
    } else if (reply instanceof RedirectFollower.CallFailed f) {
      if (f.cause() instanceof NotExecutedException && nextCandidate) {
        attempt(follower, request, candidates, index + 1, f.redirectsLeft(), outcome);
      } else {
        outcome.completeExceptionally(f.cause());
      }
    } else if (reply instanceof RedirectFollower.Unreachable u) {
      if (nextCandidate) {
        attempt(follower, request, candidates, index + 1, redirectsLeft, outcome);
      } else {
        outcome.completeExceptionally(
            new NotExecutedException("no connection to " + u.target() + ": " + u.cause()));
      }
    } else if (reply instanceof RedirectFollower.Refused r) {
      outcome.completeExceptionally(new InvalidRequestException(r.reason()));
    } else {
      RedirectFollower.TooManyRedirects t = (RedirectFollower.TooManyRedirects) reply;
      outcome.completeExceptionally(
          new NotExecutedException("too many redirects, last to " + t.last()));
    }
  }

  /**
   * Graceful close: new calls fail {@link NotExecutedException} at once; calls already made get up
   * to the operation timeout to end on their own (so a mutation in flight is not turned into an
   * unknown outcome by the close); whatever still runs then fails (a mutation's outcome is then
   * unknown); connections, threads and sessions end.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    long deadline = System.nanoTime() + operationTimeout.toNanos();
    boolean interrupted = false;
    while (activeKeys() > 0 && System.nanoTime() - deadline < 0) {
      if (Thread.interrupted()) {
        interrupted = true; // stop waiting, close now, and keep the caller's interrupt
        break;
      }
      // Condition-based wait with a deadline; calls end on the event loops.
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    control.close();
    connections.close();
    closeSessions();
    loopsLease.close();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
