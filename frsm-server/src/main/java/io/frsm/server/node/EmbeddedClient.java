package io.frsm.server.node;

import io.frsm.client.RequestLimits;
import io.frsm.client.SessionClient;
import io.frsm.client.SessionCounters;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.transport.CoreOperations;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The client {@link FrsmNode#client()} hands out: an operation on a key whose range this node leads
 * goes straight to the local core; any other is forwarded to the range's leader over the client
 * protocol (the node decides, see {@link OperationRouter#route}). τ is the caller's wall clock when
 * it issued the call, also when forwarded. Session ordering and argument checks come from {@link
 * SessionClient}.
 */
final class EmbeddedClient extends SessionClient {
  private final BiFunction<Operation, Long, CompletableFuture<Outcome>> node;
  private final Runnable onClose;
  private volatile boolean closed;

  EmbeddedClient(
      RequestLimits limits,
      long createSettleNanos,
      SessionCounters sessions,
      BiFunction<Operation, Long, CompletableFuture<Outcome>> node,
      Runnable onClose) {
    super(limits, createSettleNanos, sessions);
    this.node = node;
    this.onClose = onClose;
  }

  @Override
  protected CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros) {
    if (closed) {
      return CompletableFuture.completedFuture(new ClientOutcome.NotExecuted("client closed"));
    }
    return node.apply(CoreOperations.toCore(operation), invokedAtMicros)
        .thenApply(CoreOperations::toClient);
  }

  @Override
  protected long invocationMicros() {
    return WallClock.nowMicros();
  }

  /** Operations already with the node run to their end; later ones are refused. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeSessions();
    onClose.run();
  }
}
