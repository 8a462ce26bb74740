package io.frsm.server.node;

import io.frsm.client.ClientConnections;
import io.frsm.client.RedirectFollower;
import io.frsm.client.RequestLimits;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.server.client.ClusterMembers;
import io.frsm.transport.CoreOperations;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Where each operation this node receives runs: here, when this node should coordinate the key
 * ({@link RangeRouter}), else at the range's leader — a thin client's request is answered with a
 * redirect there, an embedded client's operation is forwarded there (following the leader's own
 * redirects). An operation the core gives back untried because this node gave the key's range up
 * meanwhile ({@code NotExecuted(rangeMoved)}) is routed again, a bounded number of times. Counts
 * what it did in {@link NodeMetrics}.
 *
 * <p>Before the cluster formed ({@link Serving} not started) every operation is answered "not
 * executed". Thread-safe: called on client connections' event loops and embedded clients' threads.
 */
final class OperationRouter {
  /**
   * Redirects a forwarded operation follows before it gives up (not executed): the first at once,
   * the others after growing pauses (about 2 s in all, {@link RedirectFollower}), enough for a
   * range to change hands.
   */
  static final int MAX_REDIRECTS = 10;

  /**
   * Times an operation is routed again after the node that queued it gave the key's range up before
   * coordinating it: the first at once, the others after growing pauses ({@link ReroutePacing},
   * about 2 s in all), enough for a range to change hands; τ + T still bounds the whole.
   */
  static final int MAX_REROUTES = 10;

  private final int self;
  private final ClusterMembers members;
  private final RequestLimits limits;
  private final InvocationWindow window;
  private final NodeMetrics metrics;
  private final BooleanSupplier stopped;
  private final ClientConnections forwarding;
  private final RedirectFollower forwarder;
  private final Serving serving;
  private final WriteGate writeGate;
  private final ReroutePacing reroutes;

  /** A forward refused because the node stopped: answered as "node N is stopped". */
  private static final class NodeStopped extends RuntimeException {
    NodeStopped() {
      super(null, null, false, false);
    }
  }

  /**
   * @param forwardTimeout how long a forwarded call waits for its answer
   * @param stopped whether the node is stopping or stopped
   * @param writeGate refuses the mutations this node would coordinate while its disk space is low
   *     or its flushes are behind
   */
  OperationRouter(
      int self,
      Serving serving,
      ClusterMembers members,
      RequestLimits limits,
      InvocationWindow window,
      NodeMetrics metrics,
      ClientConnections forwarding,
      Duration forwardTimeout,
      BooleanSupplier stopped,
      WriteGate writeGate) {
    this.self = self;
    this.writeGate = writeGate;
    this.serving = serving;
    this.members = members;
    this.limits = limits;
    this.window = window;
    this.metrics = metrics;
    this.forwarding = forwarding;
    this.stopped = stopped;
    this.forwarder =
        new RedirectFollower(
            (target, request) -> {
              if (stopped.getAsBoolean()) {
                throw new NodeStopped();
              }
              return forwarding.to(target).call(request, forwardTimeout);
            },
            forwarding.pause());
    this.reroutes = new ReroutePacing(forwarding.pause());
  }

  /** What this node accepts as an operation (also what its embedded clients check). */
  RequestLimits limits() {
    return limits;
  }

  /** Live members changed: forwarding connections to departed ones are closed. */
  void membersChanged() {
    forwarding.retainOnly(members.liveClientAddresses());
  }

  /** Closes every forwarding connection (their calls in flight fail). */
  void closeForwarding() {
    forwarding.close();
  }

  /**
   * A thin client's (or a forwarding node's) request, as the client protocol server hands it over.
   * Admission checks what the transport's decoding could not (docs/formats/wire.md "Validated
   * ranges"): sizes and reserved keys ({@link RequestLimits}) and τ against this node's clock
   * ({@link InvocationWindow}); a refusal is answered Invalid, naming the field, before anything
   * runs.
   */
  CompletableFuture<OperationResponse> onClientRequest(OperationRequest request) {
    long now = nowMicros();
    String refusal = limits.refusal(request.operation());
    if (refusal == null) {
      refusal = window.refusal(request.invokedAtMicros(), now);
    }
    if (refusal != null) {
      return CompletableFuture.completedFuture(new OperationResponse.Invalid(refusal));
    }
    long tau = request.invokedAtMicros() == 0 ? now : request.invokedAtMicros();
    return serveClient(CoreOperations.toCore(request.operation()), tau, MAX_REROUTES, false);
  }

  /**
   * A thin client's operation: redirected when another node leads the key's range, else run here;
   * routed again (up to {@code reroutesLeft} times) if this node gives the range up before
   * coordinating it ({@code handedOver}: this node's core gave it back, so it is not run here again
   * while another replica is live, see {@link RangeRouter#coordinatorAfterHandOver}).
   */
  private CompletableFuture<OperationResponse> serveClient(
      Operation operation, long tau, int reroutesLeft, boolean handedOver) {
    RangeRouter ranges = serving.ranges();
    if (ranges != null) {
      int coordinator =
          handedOver
              ? ranges.coordinatorAfterHandOver(operation.key())
              : ranges.coordinatorOf(operation.key());
      if (coordinator != self) {
        InetSocketAddress leader = members.clientAddress(coordinator);
        if (leader != null && leader.getPort() > 0) {
          metrics.routed(NodeMetrics.Routed.REDIRECTED);
          return CompletableFuture.completedFuture(
              new OperationResponse.Redirect(leader.getHostString(), leader.getPort()));
        }
        return CompletableFuture.completedFuture(completed(addressUnknown(coordinator)));
      }
    }
    return submit(operation, tau, reroutesLeft > 0)
        .thenCompose(
            outcome ->
                movedAway(outcome)
                    ? reroutes.reroute(
                        MAX_REROUTES - reroutesLeft,
                        () -> serveClient(operation, tau, reroutesLeft - 1, true))
                    : CompletableFuture.completedFuture(completed(outcome)));
  }

  /**
   * An embedded client's operation: run here if this node coordinates the key, else forwarded to
   * the node that does (following its redirects), with the caller's τ.
   */
  CompletableFuture<Outcome> route(Operation operation, long invokedAtMicros) {
    return route(operation, invokedAtMicros, MAX_REROUTES, false);
  }

  /**
   * An embedded client's operation: run here when this node should coordinate the key, else
   * forwarded to the range's leader; routed again (up to {@code reroutesLeft} times) if this node
   * gives the range up before coordinating it ({@code handedOver}: as in {@link #serveClient}).
   */
  private CompletableFuture<Outcome> route(
      Operation operation, long invokedAtMicros, int reroutesLeft, boolean handedOver) {
    RangeRouter ranges = serving.ranges();
    if (ranges == null) {
      // Not serving: answered "not executed".
      return submit(operation, invokedAtMicros, false);
    }
    int coordinator =
        handedOver
            ? ranges.coordinatorAfterHandOver(operation.key())
            : ranges.coordinatorOf(operation.key());
    if (coordinator == self) {
      return submit(operation, invokedAtMicros, reroutesLeft > 0)
          .thenCompose(
              outcome ->
                  movedAway(outcome)
                      ? reroutes.reroute(
                          MAX_REROUTES - reroutesLeft,
                          () -> route(operation, invokedAtMicros, reroutesLeft - 1, true))
                      : CompletableFuture.completedFuture(outcome));
    }
    InetSocketAddress target = members.clientAddress(coordinator);
    if (target == null || target.getPort() == 0) {
      return CompletableFuture.completedFuture(addressUnknown(coordinator));
    }
    metrics.routed(NodeMetrics.Routed.FORWARDED);
    long startNanos = System.nanoTime();
    return forward(
            new OperationRequest(CoreOperations.toClient(operation), invokedAtMicros), target)
        .whenComplete(
            (outcome, error) -> {
              if (outcome != null) {
                metrics.forwardedEnded(operation, outcome, System.nanoTime() - startNanos);
              }
            });
  }

  /** Forwards to {@code target}: whatever does not end in an outcome there is "not executed". */
  private CompletableFuture<Outcome> forward(OperationRequest request, InetSocketAddress target) {
    return forwarder
        .send(request, target, MAX_REDIRECTS)
        .thenCompose(
            reply -> {
              if (reply instanceof RedirectFollower.Answered a) {
                return CompletableFuture.completedFuture(CoreOperations.toCore(a.outcome()));
              }
              if (reply instanceof RedirectFollower.CallFailed f) {
                return CompletableFuture.failedFuture(f.cause());
              }
              return CompletableFuture.completedFuture(notExecuted(reply));
            });
  }

  private Outcome notExecuted(RedirectFollower.Reply reply) {
    if (reply instanceof RedirectFollower.Refused r) {
      return new Outcome.NotExecuted("refused by " + r.node() + ": " + r.reason());
    }
    if (reply instanceof RedirectFollower.TooManyRedirects t) {
      return new Outcome.NotExecuted("too many redirects, last to " + t.last());
    }
    RedirectFollower.Unreachable u = (RedirectFollower.Unreachable) reply;
    return u.cause() instanceof NodeStopped
        ? new Outcome.NotExecuted("node " + self + " is stopped")
        : new Outcome.NotExecuted("cannot reach " + u.target() + ": " + u.cause());
  }

  private static OperationResponse completed(Outcome outcome) {
    return new OperationResponse.Completed(CoreOperations.toClient(outcome));
  }

  private static Outcome addressUnknown(int coordinator) {
    return new Outcome.NotExecuted(
        "node " + coordinator + " leads the key's range but its address is unknown");
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
    CoreShards core = serving.core();
    if (core == null) {
      return CompletableFuture.completedFuture(
          CoreAnswer.of(
              new Outcome.NotExecuted(
                  stopped.getAsBoolean()
                      ? "node " + self + " is stopped"
                      : "node " + self + " does not serve yet: the cluster has not formed")));
    }
    if (!(operation instanceof Operation.Get)) {
      // Before the core: nothing ran, so "not executed" is exact and the client may retry.
      String refusal = writeGate.refusal();
      if (refusal != null) {
        return CompletableFuture.completedFuture(CoreAnswer.of(new Outcome.NotExecuted(refusal)));
      }
    }
    return core.submit(operation, invokedAtMicros);
  }

  private static long nowMicros() {
    return WallClock.nowMicros();
  }
}
