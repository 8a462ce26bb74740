package io.frsm.client;

import io.frsm.api.ClientObserver;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Futures;
import io.frsm.api.ReadMode;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.time.Duration;
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

  /** Idempotency tokens must not repeat across clients and restarts: a strong random source. */
  private static final java.security.SecureRandom TOKENS = new java.security.SecureRandom();

  private final RequestLimits limits;

  /** The client's own callback threads, or null when the user gave an executor. */
  private final ExecutorService callbackPool;

  private final java.util.concurrent.Executor callbacks;
  private final ScheduledExecutorService scheduler;

  /**
   * The scheduler's thread (resends, delayed fences): a continuation run there by a direct callback
   * executor must not block it either.
   */
  private volatile Thread timerThread;

  private final KeySessions sessions;
  private final ObservedCalls observed;

  /**
   * @param createSettleNanos {@code T + 2ε} of the cluster (see {@link KeySessions})
   * @param counters where this client's sessions count what they did (shared, e.g. by a node)
   */
  protected SessionClient(RequestLimits limits, long createSettleNanos, SessionCounters counters) {
    this(limits, () -> createSettleNanos, counters, ClientObserver.NONE);
  }

  /**
   * @param createSettleNanos {@code T + 2ε} of the cluster, asked when a create ends with an
   *     unknown outcome (see {@link KeySessions}); must not block
   */
  protected SessionClient(RequestLimits limits, LongSupplier createSettleNanos) {
    this(limits, createSettleNanos, new SessionCounters(), ClientObserver.NONE);
  }

  /**
   * For a client that learns {@code T + 2ε} of the cluster over time: {@link #createSettleNanos()}
   * is asked each time a create ends with an unknown outcome.
   */
  protected SessionClient(RequestLimits limits, ClientObserver observer) {
    this(limits, null, new SessionCounters(), observer, null);
  }

  /**
   * Like {@link #SessionClient(RequestLimits, ClientObserver)}, with the futures of async calls
   * completed on {@code callbackExecutor} (null: a pool of the client's own).
   */
  protected SessionClient(
      RequestLimits limits,
      ClientObserver observer,
      java.util.concurrent.Executor callbackExecutor) {
    this(limits, null, new SessionCounters(), observer, callbackExecutor);
  }

  private SessionClient(
      RequestLimits limits,
      LongSupplier createSettleNanos,
      SessionCounters counters,
      ClientObserver observer) {
    this(limits, createSettleNanos, counters, observer, null);
  }

  private SessionClient(
      RequestLimits limits,
      LongSupplier createSettleNanos,
      SessionCounters counters,
      ClientObserver observer,
      java.util.concurrent.Executor callbackExecutor) {
    this.limits = limits;
    this.observed = new ObservedCalls(observer);
    LongSupplier settle = createSettleNanos != null ? createSettleNanos : this::createSettleNanos;
    int id = CLIENTS.incrementAndGet();
    this.callbackPool =
        callbackExecutor != null
            ? null
            : Executors.newCachedThreadPool(daemon("frsm-client-" + id + "-callbacks"));
    this.callbacks = callbackExecutor != null ? callbackExecutor : callbackPool;
    ThreadFactory timerThreads = daemon("frsm-client-" + id + "-timer");
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = timerThreads.newThread(r);
              timerThread = t;
              return t;
            });
    this.sessions = new KeySessions(new Runner(), this::deliver, scheduler, settle, counters);
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Runs user callbacks on the callback executor: the client's own pool (off the network threads),
   * or the user's. A rejected task runs inline: the client's pool rejects only once closed (late
   * completions), and a call must never be left without an answer.
   */
  private void deliver(Runnable task) {
    try {
      callbacks.execute(task);
    } catch (RejectedExecutionException rejected) {
      task.run();
    }
  }

  /**
   * Whether the calling thread is one of the client's network threads, where a sync call would wait
   * for an answer only that thread can read (a user's callback run there through a direct {@code
   * callbackExecutor}). Implementations with network threads override it.
   */
  protected boolean onNetworkThread() {
    return false;
  }

  /** A sync call from a network thread would never end: refused at once instead. */
  private void checkMayBlock() {
    if (onNetworkThread() || Thread.currentThread() == timerThread) {
      throw new IllegalStateException(
          "a sync call of the frsm client on one of its network or timer threads (a callback run"
              + " by a direct callbackExecutor) would wait for itself: use the async method there, or"
              + " a callbackExecutor whose threads may block");
    }
  }

  /** Hands KeySessions' calls to {@link #runOperation}, with their per-call timeout. */
  private final class Runner implements KeySessions.OperationRunner {
    @Override
    public CompletableFuture<ClientOutcome> run(ClientOperation operation, long invokedAtMicros) {
      return runOperation(operation, invokedAtMicros, 0);
    }

    @Override
    public CompletableFuture<ClientOutcome> run(
        ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
      return runOperation(operation, invokedAtMicros, timeoutNanos);
    }
  }

  /**
   * Runs one validated operation. Completes with the outcome, or exceptionally with an {@link
   * FrsmException} (for example a timeout in transit).
   */
  protected abstract CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros);

  /**
   * Like {@link #runOperation(ClientOperation, long)}, waiting at most {@code timeoutNanos} for an
   * answer (0: the client's default). A client that honours per-call timeouts overrides this and
   * {@link #supportsTimeout}.
   */
  protected CompletableFuture<ClientOutcome> runOperation(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    return runOperation(operation, invokedAtMicros);
  }

  /** Whether {@link #runOperation(ClientOperation, long, long)} honours its timeout. */
  protected boolean supportsTimeout() {
    return false;
  }

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
    return getAsync(key, CallOptions.DEFAULTS);
  }

  @Override
  public Optional<Versioned> get(byte[] key) {
    return get(key, CallOptions.DEFAULTS);
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return createAsync(key, value, CallOptions.DEFAULTS);
  }

  @Override
  public Version create(byte[] key, byte[] value) {
    return create(key, value, CallOptions.DEFAULTS);
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    return casAsync(key, expected, newValue, CallOptions.DEFAULTS);
  }

  @Override
  public Version cas(byte[] key, Version expected, byte[] newValue) {
    return cas(key, expected, newValue, CallOptions.DEFAULTS);
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    return deleteAsync(key, expected, CallOptions.DEFAULTS);
  }

  @Override
  public void delete(byte[] key, Version expected) {
    delete(key, expected, CallOptions.DEFAULTS);
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return fenceAsync(key, CallOptions.DEFAULTS);
  }

  @Override
  public Optional<Versioned> fence(byte[] key) {
    return fence(key, CallOptions.DEFAULTS);
  }

  @Override
  public FrsmClient withReadMode(ReadMode mode) {
    return new DerivedClient(this, CallOptions.DEFAULTS.withReadMode(mode));
  }

  @Override
  public FrsmClient withTimeout(Duration timeout) {
    return new DerivedClient(this, CallOptions.DEFAULTS.withTimeout(timeout));
  }

  @Override
  public FrsmClient idempotent() {
    return new DerivedClient(this, CallOptions.DEFAULTS.asIdempotent());
  }

  // The calls with options: this client's own methods pass the defaults, a DerivedClient its own.

  final CompletableFuture<Optional<Versioned>> getAsync(byte[] key, CallOptions o) {
    return submit(readKind(o), () -> readOp(key, o.readMode()), false, o)
        .thenApply(SessionClient::readResult);
  }

  final Optional<Versioned> get(byte[] key, CallOptions o) {
    checkMayBlock();
    return Futures.join(
        submit(readKind(o), () -> readOp(key, o.readMode()), true, o)
            .thenApply(SessionClient::readResult));
  }

  final CompletableFuture<Version> createAsync(byte[] key, byte[] value, CallOptions o) {
    return submit("create", () -> createOp(key, value, o), false, o)
        .thenApply(SessionClient::written);
  }

  final Version create(byte[] key, byte[] value, CallOptions o) {
    checkMayBlock();
    return Futures.join(
        submit("create", () -> createOp(key, value, o), true, o).thenApply(SessionClient::written));
  }

  final CompletableFuture<Version> casAsync(
      byte[] key, Version expected, byte[] newValue, CallOptions o) {
    return submit("cas", () -> casOp(key, expected, newValue, o), false, o)
        .thenApply(SessionClient::written);
  }

  final Version cas(byte[] key, Version expected, byte[] newValue, CallOptions o) {
    checkMayBlock();
    return Futures.join(
        submit("cas", () -> casOp(key, expected, newValue, o), true, o)
            .thenApply(SessionClient::written));
  }

  final CompletableFuture<Void> deleteAsync(byte[] key, Version expected, CallOptions o) {
    return submit("delete", () -> deleteOp(key, expected, o), false, o)
        .thenApply(SessionClient::deleted);
  }

  final void delete(byte[] key, Version expected, CallOptions o) {
    checkMayBlock();
    Futures.join(
        submit("delete", () -> deleteOp(key, expected, o), true, o)
            .thenApply(SessionClient::deleted));
  }

  final CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key, CallOptions o) {
    return submit("fence", () -> new ClientOperation.Fence(limits.key(key)), false, o)
        .thenApply(SessionClient::readResult);
  }

  final Optional<Versioned> fence(byte[] key, CallOptions o) {
    checkMayBlock();
    return Futures.join(
        submit("fence", () -> new ClientOperation.Fence(limits.key(key)), true, o)
            .thenApply(SessionClient::readResult));
  }

  /** What a get in {@code o}'s read mode is, to the observer. */
  private static String readKind(CallOptions o) {
    return o.readMode() == ReadMode.FENCED ? "fence" : "get";
  }

  /** A get in {@code mode}: a fence for {@link ReadMode#FENCED}, which answers like a read. */
  private ClientOperation readOp(byte[] key, ReadMode mode) {
    return switch (mode) {
      case LEADER_WHEN_AVAILABLE -> new ClientOperation.Get(limits.key(key));
      case QUORUM -> new ClientOperation.Get(limits.key(key), true);
      case FENCED -> new ClientOperation.Fence(limits.key(key));
    };
  }

  /**
   * Checks a derived client's options when it is made.
   *
   * @throws UnsupportedOperationException if this client cannot honour them
   */
  final void checkOptions(CallOptions o) {
    if (o.timeoutNanos() > 0 && !supportsTimeout()) {
      throw new UnsupportedOperationException(
          getClass().getSimpleName()
              + " has no per-call timeout: its operations end by the cluster's bounded delay T");
    }
  }

  private ClientOperation createOp(byte[] key, byte[] value, CallOptions o) {
    return new ClientOperation.Create(limits.key(key), limits.value(value), hint(o));
  }

  private ClientOperation casOp(byte[] key, Version expected, byte[] newValue, CallOptions o) {
    return new ClientOperation.Cas(
        limits.key(key), RequestLimits.version(expected), limits.value(newValue), hint(o));
  }

  private ClientOperation deleteOp(byte[] key, Version expected, CallOptions o) {
    return new ClientOperation.Delete(limits.key(key), RequestLimits.version(expected), hint(o));
  }

  /** A fresh random 128-bit token for a mutation of an idempotent client, else none. */
  private static ClientOperation.Hint hint(CallOptions o) {
    if (!o.idempotent()) {
      return null;
    }
    byte[] token = new byte[ClientOperation.Hint.TOKEN_BYTES];
    TOKENS.nextBytes(token);
    return new ClientOperation.Hint(token, false);
  }

  /**
   * Validates and queues an operation; argument errors fail the returned future (the async
   * contract), not the calling thread. {@code blocking}: the caller waits on the result itself (a
   * sync method), so the result need not be handed to the callback pool (see {@link
   * KeySessions#submitForBlockingCaller}); only frsm's own result mapping runs on the completing
   * thread.
   */
  private CompletableFuture<ClientOutcome> submit(
      String kind,
      java.util.function.Supplier<ClientOperation> operation,
      boolean blocking,
      CallOptions o) {
    long tau = invocationMicros();
    long startNanos = System.nanoTime();
    ClientOperation op;
    try {
      op = operation.get();
    } catch (FrsmException e) {
      observed.refused(kind, startNanos);
      return CompletableFuture.failedFuture(e);
    }
    return observed.observe(
        op,
        startNanos,
        blocking
            ? sessions.submitForBlockingCaller(op, tau, o.timeoutNanos())
            : sessions.submit(op, tau, o.timeoutNanos()));
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

  /** Keys with calls queued or running (a graceful close waits for none). */
  protected int activeKeys() {
    return sessions.activeKeys();
  }

  /** The observer's hearing of a topology change (for subclasses that learn one). */
  protected void topologyChanged(int liveNodes) {
    observed.topologyChanged(liveNodes);
  }

  /** Stops the client's own threads; subclasses fail their calls in flight first. */
  protected void closeSessions() {
    // Delayed fences that never ran now run and fail at once (the runner is closed), so no call
    // is left without an answer.
    for (Runnable delayed : scheduler.shutdownNow()) {
      delayed.run();
    }
    if (callbackPool == null) {
      return; // the user's executor is the user's to stop
    }
    callbackPool.shutdown();
    try {
      callbackPool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
