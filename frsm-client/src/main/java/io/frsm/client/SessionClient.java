package io.frsm.client;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Futures;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The part of {@link FrsmClient} that the embedded and the thin client share: argument checks
 * ({@link RequestLimits}), session ordering per key ({@link KeySessions}), and turning the core's
 * {@link ClientOutcome}s into results and typed exceptions. Subclasses say how one operation runs.
 */
public abstract class SessionClient implements FrsmClient {
  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final RequestLimits limits;
  private final ExecutorService callbackPool;
  private final ScheduledExecutorService scheduler;
  private final KeySessions sessions;

  /**
   * @param createSettleNanos {@code T + 2ε} of the cluster (see {@link KeySessions})
   * @param counters where this client's sessions count what they did (shared, e.g. by a node)
   */
  protected SessionClient(RequestLimits limits, long createSettleNanos, SessionCounters counters) {
    this(limits, () -> createSettleNanos, counters);
  }

  /**
   * @param createSettleNanos {@code T + 2ε} of the cluster, asked when a create ends with an
   *     unknown outcome (see {@link KeySessions}); must not block
   */
  protected SessionClient(RequestLimits limits, LongSupplier createSettleNanos) {
    this(limits, createSettleNanos, new SessionCounters());
  }

  /**
   * For a client that learns {@code T + 2ε} of the cluster over time: {@link #createSettleNanos()}
   * is asked each time a create ends with an unknown outcome.
   */
  protected SessionClient(RequestLimits limits) {
    this(limits, null, new SessionCounters());
  }

  private SessionClient(
      RequestLimits limits, LongSupplier createSettleNanos, SessionCounters counters) {
    this.limits = limits;
    LongSupplier settle = createSettleNanos != null ? createSettleNanos : this::createSettleNanos;
    int id = CLIENTS.incrementAndGet();
    this.callbackPool = Executors.newCachedThreadPool(daemon("frsm-client-" + id + "-callbacks"));
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(daemon("frsm-client-" + id + "-timer"));
    this.sessions = new KeySessions(this::runOperation, this::deliver, scheduler, settle, counters);
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Runs user callbacks off the I/O threads; once closed, inline (late completions only). */
  private void deliver(Runnable task) {
    try {
      callbackPool.execute(task);
    } catch (RejectedExecutionException closed) {
      task.run();
    }
  }

  /**
   * Runs one validated operation. Completes with the outcome, or exceptionally with an {@link
   * FrsmException} (for example a timeout in transit).
   */
  protected abstract CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros);

  /**
   * {@code T + 2ε} of the cluster now, for a client built with {@link
   * #SessionClient(RequestLimits)}; must not block. The others pass it to their constructor.
   */
  protected long createSettleNanos() {
    throw new IllegalStateException("this client was given T + 2ε at construction");
  }

  /** τ for an operation issued now: the caller's wall clock (embedded) or 0 (thin client). */
  protected abstract long invocationMicros();

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return submit(() -> new ClientOperation.Get(limits.key(key)), false)
        .thenApply(SessionClient::readResult);
  }

  @Override
  public Optional<Versioned> get(byte[] key) {
    return Futures.join(
        submit(() -> new ClientOperation.Get(limits.key(key)), true)
            .thenApply(SessionClient::readResult));
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return submit(() -> createOp(key, value), false).thenApply(SessionClient::written);
  }

  @Override
  public Version create(byte[] key, byte[] value) {
    return Futures.join(submit(() -> createOp(key, value), true).thenApply(SessionClient::written));
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    return submit(() -> casOp(key, expected, newValue), false).thenApply(SessionClient::written);
  }

  @Override
  public Version cas(byte[] key, Version expected, byte[] newValue) {
    return Futures.join(
        submit(() -> casOp(key, expected, newValue), true).thenApply(SessionClient::written));
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    return submit(() -> deleteOp(key, expected), false).thenApply(SessionClient::deleted);
  }

  @Override
  public void delete(byte[] key, Version expected) {
    Futures.join(submit(() -> deleteOp(key, expected), true).thenApply(SessionClient::deleted));
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return submit(() -> new ClientOperation.Fence(limits.key(key)), false)
        .thenApply(SessionClient::readResult);
  }

  @Override
  public Optional<Versioned> fence(byte[] key) {
    return Futures.join(
        submit(() -> new ClientOperation.Fence(limits.key(key)), true)
            .thenApply(SessionClient::readResult));
  }

  private ClientOperation createOp(byte[] key, byte[] value) {
    return new ClientOperation.Create(limits.key(key), limits.value(value));
  }

  private ClientOperation casOp(byte[] key, Version expected, byte[] newValue) {
    return new ClientOperation.Cas(
        limits.key(key), RequestLimits.version(expected), limits.value(newValue));
  }

  private ClientOperation deleteOp(byte[] key, Version expected) {
    return new ClientOperation.Delete(limits.key(key), RequestLimits.version(expected));
  }

  /**
   * Validates and queues an operation; argument errors fail the returned future (the async
   * contract), not the calling thread. {@code blocking}: the caller waits on the result itself (a
   * sync method), so the result need not be handed to the callback pool (see {@link
   * KeySessions#submitForBlockingCaller}); only frsm's own result mapping runs on the completing
   * thread.
   */
  private CompletableFuture<ClientOutcome> submit(
      java.util.function.Supplier<ClientOperation> operation, boolean blocking) {
    long tau = invocationMicros();
    ClientOperation op;
    try {
      op = operation.get();
    } catch (FrsmException e) {
      return CompletableFuture.failedFuture(e);
    }
    return blocking ? sessions.submitForBlockingCaller(op, tau) : sessions.submit(op, tau);
  }

  private static Optional<Versioned> readResult(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.ReadResult r) {
      return r.value();
    }
    throw failure(outcome);
  }

  private static Version written(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.Written w) {
      return w.version();
    }
    throw failure(outcome);
  }

  private static Void deleted(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.Deleted) {
      return null;
    }
    throw failure(outcome);
  }

  private static FrsmException failure(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.Failure f) {
      return f.toException();
    }
    return new FrsmException("unexpected outcome for this operation: " + outcome);
  }

  /** Stops the client's own threads; subclasses fail their calls in flight first. */
  protected void closeSessions() {
    // Delayed fences that never ran now run and fail at once (the runner is closed), so no call
    // is left without an answer.
    for (Runnable delayed : scheduler.shutdownNow()) {
      delayed.run();
    }
    callbackPool.shutdown();
    try {
      callbackPool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
