package io.frsm.server.client;

import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.lsm.cell.Key;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Session ordering (DESIGN.md "Operations"): a client's operations on one key take effect in the
 * order it issued them.
 *
 * <ul>
 *   <li>Per key, one operation at a time: later calls on the key wait in a FIFO behind it (other
 *       keys never wait). So at most one mutation per key is in flight, and a read issued after a
 *       mutation sees it.
 *   <li>After a mutation ends with an unknown outcome, the key is <em>fenced</em> before its next
 *       operation runs: once the fence returns, the unknown mutation has taken effect or never
 *       will, so it cannot land after a later operation. A create's fate is settled only {@code T +
 *       2ε} after it was issued, so a fence after an unknown create waits until then. If the
 *       caller's next operation is itself a fence, that fence serves. If the fence fails, the next
 *       operation fails {@link NotExecutedException} without running and the key stays marked.
 * </ul>
 *
 * <p>Thread-safe. Results are delivered on {@code callbacks}, never on the thread that completed
 * the operation (a node's event loop or a network thread must not run user code). {@code callbacks}
 * must never reject a task (run it inline once closed).
 */
public final class KeySessions {

  /** Runs one operation; completes with the core's outcome or exceptionally (transport errors). */
  @FunctionalInterface
  public interface OperationRunner {
    CompletableFuture<Outcome> run(Operation operation, long invokedAtMicros);
  }

  private final OperationRunner runner;
  private final Executor callbacks;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier createSettleNanos;
  private final Map<Key, KeyState> keys = new HashMap<>(); // guarded by this

  private static final class KeyState {
    final ArrayDeque<Call> queue = new ArrayDeque<>();
    boolean running;
    boolean needsFence;
    long fenceNotBeforeNanos;
  }

  private record Call(
      Operation operation, long invokedAtMicros, CompletableFuture<Outcome> result) {}

  /**
   * @param createSettleNanos {@code T + 2ε}: how long after an unknown create its fence waits
   * @param scheduler delays such fences; owned by the caller
   */
  public KeySessions(
      OperationRunner runner,
      Executor callbacks,
      ScheduledExecutorService scheduler,
      long createSettleNanos) {
    this(runner, callbacks, scheduler, () -> createSettleNanos);
  }

  /**
   * @param createSettleNanos {@code T + 2ε} of the cluster, asked each time a create ends with an
   *     unknown outcome (a thin client learns it from ZooKeeper after it was built); must not block
   * @param scheduler delays such fences; owned by the caller
   */
  public KeySessions(
      OperationRunner runner,
      Executor callbacks,
      ScheduledExecutorService scheduler,
      LongSupplier createSettleNanos) {
    this.runner = runner;
    this.callbacks = callbacks;
    this.scheduler = scheduler;
    this.createSettleNanos = createSettleNanos;
  }

  /** Queues {@code operation} behind the key's earlier ones; the result arrives on callbacks. */
  public CompletableFuture<Outcome> submit(Operation operation, long invokedAtMicros) {
    CompletableFuture<Outcome> result = enqueue(operation, invokedAtMicros);
    CompletableFuture<Outcome> delivered = new CompletableFuture<>();
    // whenCompleteAsync (unlike thenApplyAsync) uses the executor for failures too.
    result.whenCompleteAsync(
        (outcome, error) -> {
          if (error != null) {
            delivered.completeExceptionally(error);
          } else {
            delivered.complete(outcome);
          }
        },
        callbacks);
    return delivered;
  }

  /**
   * Like {@link #submit}, for a caller that blocks on the result and attaches no code of its own:
   * the future completes on whichever thread finished the operation (a node's core or event loop),
   * which then only wakes the waiting caller. Saves the hand-off to {@code callbacks}, a thread
   * wake-up per call. Never hand this future to user code.
   */
  public CompletableFuture<Outcome> submitForBlockingCaller(
      Operation operation, long invokedAtMicros) {
    return enqueue(operation, invokedAtMicros);
  }

  private CompletableFuture<Outcome> enqueue(Operation operation, long invokedAtMicros) {
    Call call = new Call(operation, invokedAtMicros, new CompletableFuture<>());
    boolean start;
    KeyState state;
    synchronized (this) {
      state = keys.computeIfAbsent(operation.key(), k -> new KeyState());
      state.queue.add(call);
      start = !state.running;
      state.running = true;
    }
    if (start) {
      runNext(operation.key(), state);
    }
    return call.result();
  }

  /** Keys with operations queued or running, or waiting for a fence. */
  public synchronized int activeKeys() {
    return keys.size();
  }

  private void runNext(Key key, KeyState state) {
    Call call;
    boolean fenceFirst;
    long fenceDelayNanos;
    synchronized (this) {
      call = state.queue.poll();
      if (call == null) {
        state.running = false;
        if (!state.needsFence) {
          keys.remove(key);
        }
        return;
      }
      fenceFirst = state.needsFence && !(call.operation() instanceof Operation.Fence);
      fenceDelayNanos = Math.max(0, state.fenceNotBeforeNanos - System.nanoTime());
    }
    if (!fenceFirst) {
      execute(key, state, call);
      return;
    }
    Runnable fence =
        () ->
            run(new Operation.Fence(key), call.invokedAtMicros())
                .whenComplete(
                    (outcome, error) -> {
                      if (error == null && outcome instanceof Outcome.ReadResult) {
                        synchronized (this) {
                          state.needsFence = false;
                        }
                        execute(key, state, call);
                      } else {
                        call.result()
                            .completeExceptionally(
                                new NotExecutedException(
                                    "the key's last mutation has an unknown outcome and the fence"
                                        + " that resolves it failed ("
                                        + describe(outcome, error)
                                        + ")"));
                        continueLater(key, state);
                      }
                    });
    if (fenceDelayNanos > 0) {
      scheduler.schedule(fence, fenceDelayNanos, TimeUnit.NANOSECONDS);
    } else {
      fence.run();
    }
  }

  private void execute(Key key, KeyState state, Call call) {
    run(call.operation(), call.invokedAtMicros())
        .whenComplete(
            (outcome, error) -> {
              boolean unknown =
                  outcome instanceof Outcome.Unknown
                      || unwrap(error) instanceof OutcomeUnknownException;
              synchronized (this) {
                if (call.operation().mutates() && unknown) {
                  state.needsFence = true;
                  state.fenceNotBeforeNanos =
                      call.operation() instanceof Operation.Create
                          ? System.nanoTime() + createSettleNanos.getAsLong()
                          : System.nanoTime();
                } else if (call.operation() instanceof Operation.Fence
                    && outcome instanceof Outcome.ReadResult) {
                  state.needsFence = false;
                }
              }
              if (error != null) {
                call.result().completeExceptionally(unwrap(error));
              } else {
                call.result().complete(outcome);
              }
              continueLater(key, state);
            });
  }

  /**
   * Starts the key's next call. With nothing queued (the common case) the key goes idle here: a
   * later submit finds it not running and starts itself. Otherwise the next call starts on this
   * thread — the one that completed the previous call (a node's core or an event loop): starting a
   * call only hands it to a node or a connection and never blocks, and it saves a thread wake-up
   * per call on a contended key. A call that completes at once would recurse through here, so after
   * {@link #MAX_INLINE_STARTS} nested starts the next one goes to {@code callbacks}.
   */
  private void continueLater(Key key, KeyState state) {
    synchronized (this) {
      if (state.queue.isEmpty()) {
        state.running = false;
        if (!state.needsFence) {
          keys.remove(key);
        }
        return;
      }
    }
    int[] depth = INLINE_DEPTH.get();
    if (depth[0] >= MAX_INLINE_STARTS) {
      callbacks.execute(() -> runNext(key, state));
      return;
    }
    depth[0]++;
    try {
      runNext(key, state);
    } finally {
      depth[0]--;
    }
  }

  private static final int MAX_INLINE_STARTS = 8;
  private static final ThreadLocal<int[]> INLINE_DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private CompletableFuture<Outcome> run(Operation operation, long invokedAtMicros) {
    try {
      return runner.run(operation, invokedAtMicros);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  private static String describe(Outcome outcome, Throwable error) {
    if (error != null) {
      return unwrap(error).getMessage();
    }
    return outcome instanceof Outcome.Failure f
        ? f.toException().getMessage()
        : String.valueOf(outcome);
  }
}
