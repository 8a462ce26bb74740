package io.frsm.server.node;

import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.server.client.RequestLimits;
import io.frsm.server.client.SessionClient;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The client {@link FrsmNode#client()} hands out: operations go straight to the local node's core,
 * which coordinates them (every node may coordinate while leases are off), with τ = the caller's
 * wall clock when it issued the call. Session ordering and argument checks come from {@link
 * SessionClient}.
 */
final class EmbeddedClient extends SessionClient {
  private final BiFunction<Operation, Long, CompletableFuture<Outcome>> node;
  private final Runnable onClose;
  private volatile boolean closed;

  EmbeddedClient(
      RequestLimits limits,
      long createSettleNanos,
      BiFunction<Operation, Long, CompletableFuture<Outcome>> node,
      Runnable onClose) {
    super(limits, createSettleNanos);
    this.node = node;
    this.onClose = onClose;
  }

  @Override
  protected CompletableFuture<Outcome> runOperation(Operation operation, long invokedAtMicros) {
    if (closed) {
      return CompletableFuture.completedFuture(new Outcome.NotExecuted("client closed"));
    }
    return node.apply(operation, invokedAtMicros);
  }

  @Override
  protected long invocationMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
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
