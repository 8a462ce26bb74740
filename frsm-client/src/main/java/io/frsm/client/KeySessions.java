package io.frsm.client;

import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Session ordering (docs/DESIGN.md "Operations"): a client's operations on one key take effect in
 * the order it issued them.
 *
 * <ul>
 *   <li>A mutation (create, CAS, delete, fence) runs alone: it starts once every earlier call on
 *       the key has ended, and later calls on the key wait in a FIFO behind it (other keys never
 *       wait). So at most one mutation per key is in flight, a read issued after a mutation sees
 *       it, and a read issued before one does not.
 *   <li>Reads issued with no mutation queued or running before them run concurrently, so a hot key
 *       read by many threads costs one round trip, not one per reader in line. Their results are
 *       given in issue order (see below), and a read that returned something older than the read
 *       before it (a lower version, or absent against present either way: the order of those cannot
 *       be told) is run once more, from after that earlier read ended, so its answer cannot be
 *       older. A client's reads of a key never go back in time, as if they had run one at a time.
 *   <li>A CAS or delete that expects a version older than one this client already saw chosen for
 *       the key (in an answer that arrived before the call starts) cannot succeed: versions only
 *       grow. It is not sent; a read runs in its place, among the other reads, and the call ends
 *       {@link ClientOutcome.Mismatch} with what the read found, or not executed if the read
 *       failed. On a hot key, the CAS that lost to one just ahead of it in the queue no longer
 *       waits its turn alone.
 *   <li>After a mutation ends with an unknown outcome, the key is <em>fenced</em> before its next
 *       operation runs: once the fence returns, the unknown mutation has taken effect or never
 *       will, so it cannot land after a later operation. A create's fate is settled only {@code T +
 *       2ε} after it was issued, so a fence after an unknown create waits until then. If the
 *       caller's next operation is itself a fence, that fence serves. If the fence fails, the next
 *       operation fails {@link NotExecutedException} without running and the key stays marked.
 * </ul>
 *
 * <p>Thread-safe. Results are delivered on {@code callbacks}, not on the thread that completed the
 * operation (a node's event loop or a network thread must not run user code that may block) —
 * unless {@code callbacks} runs tasks inline, which a user of the thin client may choose for code
 * that never blocks ({@code FrsmClientBuilder.callbackExecutor}). {@code callbacks} must never
 * reject a task (run it inline once closed). A key's calls get their results one at a time, in
 * issue order, and each result is then handed to {@code callbacks} on its own: the callers' futures
 * complete in issue order when {@code callbacks} runs tasks inline, but a pool may run two
 * hand-overs side by side and complete a later call's future first (the values still keep the order
 * above). Code attached to the futures may run on any thread that completes or waits on them, in
 * any order.
 */
public final class KeySessions {

  /** Runs one operation; completes with the core's outcome or exceptionally (transport errors). */
  @FunctionalInterface
  public interface OperationRunner {
    CompletableFuture<ClientOutcome> run(ClientOperation operation, long invokedAtMicros);

    /**
     * Runs one operation waiting at most {@code timeoutNanos} for a node's answer (0: the client's
     * default). A runner without per-call timeouts ignores it.
     */
    default CompletableFuture<ClientOutcome> run(
        ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
      return run(operation, invokedAtMicros);
    }
  }

  private final OperationRunner runner;
  private final Executor callbacks;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier createSettleNanos;
  // Each key's state is guarded by its own lock, so callers and event loops working on different
  // keys never wait for each other (one lock for all keys put most operations through a contended
  // monitor: a futex wait and wake each). A state leaves the map only when idle (forgetIfIdle).
  private final ConcurrentHashMap<KeyBytes, KeyState> keys = new ConcurrentHashMap<>();
  private final SessionCounters counters;

  /** A key's session state; every field (and its reads' fields) guarded by the state's lock. */
  private static final class KeyState {
    final ArrayDeque<Call> queue = new ArrayDeque<>();

    /** Reads started and not yet delivered, in issue order. */
    final ArrayDeque<Read> reads = new ArrayDeque<>();

    /**
     * The highest version of the key this client saw chosen (in a call's answer), or null: a CAS or
     * delete expecting an older one cannot succeed. Forgotten when the key goes idle.
     */
    Version seen;

    /** A mutation, or a call behind the fence of an unknown mutation, is running. */
    boolean exclusive;

    boolean needsFence;
    long fenceNotBeforeNanos;

    /** A thread is handing over the key's ended reads (one at a time, in issue order). */
    boolean delivering;

    /**
     * The value of the last read handed over while reads are in flight, which later ones must not
     * be older than; null when there is none.
     */
    Optional<Versioned> floor;

    boolean idle() {
      return queue.isEmpty() && reads.isEmpty() && !exclusive && !needsFence;
    }
  }

  /** {@code timeoutNanos}: the caller's per-call timeout, 0 for the client's default. */
  private record Call(
      ClientOperation operation,
      long invokedAtMicros,
      long timeoutNanos,
      CompletableFuture<ClientOutcome> result) {}

  /**
   * A running read and, once it ended, how. {@code lost}, when not null: the call is a CAS or
   * delete answered by this read instead, as it expected a version older than {@code lost}, which
   * was already seen chosen.
   */
  private static final class Read {
    final Call call;
    final Version lost;
    boolean ended;
    boolean rerun;
    ClientOutcome outcome;
    Throwable error;

    Read(Call call, Version lost) {
      this.call = call;
      this.lost = lost;
    }

    ClientOperation toRun() {
      return lost == null ? call.operation() : new ClientOperation.Get(call.operation().key());
    }
  }

  /**
   * @param createSettleNanos {@code T + 2ε}: how long after an unknown create its fence waits
   * @param scheduler delays such fences; owned by the caller
   */
  public KeySessions(
      OperationRunner runner,
      Executor callbacks,
      ScheduledExecutorService scheduler,
      long createSettleNanos) {
    this(runner, callbacks, scheduler, () -> createSettleNanos, new SessionCounters());
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
      LongSupplier createSettleNanos,
      SessionCounters counters) {
    this.counters = counters;
    this.runner = runner;
    this.callbacks = callbacks;
    this.scheduler = scheduler;
    this.createSettleNanos = createSettleNanos;
  }

  /** Queues {@code operation} behind the key's earlier ones; the result arrives on callbacks. */
  public CompletableFuture<ClientOutcome> submit(ClientOperation operation, long invokedAtMicros) {
    return submit(operation, invokedAtMicros, 0);
  }

  /**
   * Like {@link #submit(ClientOperation, long)}, with a per-call timeout the runner is given with
   * the operation (0: the client's default); the fence the call may need first gets it too.
   */
  public CompletableFuture<ClientOutcome> submit(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    CompletableFuture<ClientOutcome> result = enqueue(operation, invokedAtMicros, timeoutNanos);
    CompletableFuture<ClientOutcome> delivered = new CompletableFuture<>();
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
  public CompletableFuture<ClientOutcome> submitForBlockingCaller(
      ClientOperation operation, long invokedAtMicros) {
    return enqueue(operation, invokedAtMicros, 0);
  }

  /** Like {@link #submitForBlockingCaller(ClientOperation, long)}, with a per-call timeout. */
  public CompletableFuture<ClientOutcome> submitForBlockingCaller(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    return enqueue(operation, invokedAtMicros, timeoutNanos);
  }

  private CompletableFuture<ClientOutcome> enqueue(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    if (timeoutNanos < 0) {
      throw new IllegalArgumentException("timeout must be >= 0, was " + timeoutNanos);
    }
    Call call = new Call(operation, invokedAtMicros, timeoutNanos, new CompletableFuture<>());
    // Queued under the map's lock for the key, so a state is never dropped (forgetIfIdle) between
    // being found here and taking the call: a dropped state had nothing queued or running.
    KeyState state =
        keys.compute(
            operation.key(),
            (k, found) -> {
              KeyState s = found != null ? found : new KeyState();
              synchronized (s) {
                s.queue.add(call);
              }
              return s;
            });
    startReady(operation.key(), state);
    return call.result();
  }

  /** Keys with operations queued or running, or waiting for a fence. */
  public int activeKeys() {
    return keys.size();
  }

  /** What these sessions did beyond running calls (shared with whoever passed them in). */
  public SessionCounters counters() {
    return counters;
  }

  /**
   * Starts every call at the head of the key's queue that may start now: reads while no mutation
   * runs or waits before them, or one mutation once nothing else runs.
   */
  private void startReady(KeyBytes key, KeyState state) {
    List<Read> reads = null;
    Call alone = null;
    boolean fenceFirst = false;
    long fenceDelayNanos = 0;
    boolean idle;
    synchronized (state) {
      while (!state.exclusive && !state.queue.isEmpty()) {
        Call head = state.queue.peek();
        Version lost = SessionAnswers.cannotSucceed(head.operation(), state.seen);
        if (!state.needsFence && (!head.operation().mutates() || lost != null)) {
          state.queue.poll();
          Read read = new Read(head, lost);
          if (lost != null) {
            counters.casAnsweredByRead();
          }
          state.reads.add(read);
          if (reads == null) {
            reads = new ArrayList<>();
          }
          reads.add(read);
          continue;
        }
        if (!state.reads.isEmpty()) {
          break; // a mutation (or a call that needs the fence first) waits for the reads before it
        }
        state.queue.poll();
        state.exclusive = true;
        alone = head;
        fenceFirst = state.needsFence && !(head.operation() instanceof ClientOperation.Fence);
        fenceDelayNanos = Math.max(0, state.fenceNotBeforeNanos - System.nanoTime());
      }
      idle = state.idle();
    }
    if (idle) {
      forgetIfIdle(key, state);
    }
    if (reads != null) {
      for (Read read : reads) {
        runRead(state, read);
      }
    }
    if (alone == null) {
      return;
    }
    if (!fenceFirst) {
      runAlone(key, state, alone);
      return;
    }
    Call call = alone;
    Runnable fence =
        () ->
            run(new ClientOperation.Fence(key), call.invokedAtMicros(), call.timeoutNanos())
                .whenComplete(
                    (outcome, error) -> {
                      if (error == null && outcome instanceof ClientOutcome.ReadResult) {
                        synchronized (state) {
                          state.needsFence = false;
                          state.seen =
                              SessionAnswers.newer(
                                  state.seen, SessionAnswers.chosenVersion(outcome));
                        }
                        runAlone(key, state, call);
                      } else {
                        call.result()
                            .completeExceptionally(
                                new NotExecutedException(
                                    "the key's last mutation has an unknown outcome and the fence"
                                        + " that resolves it failed ("
                                        + SessionAnswers.describe(outcome, error)
                                        + ")"));
                        endAlone(key, state);
                      }
                    });
    if (fenceDelayNanos > 0) {
      scheduler.schedule(fence, fenceDelayNanos, TimeUnit.NANOSECONDS);
    } else {
      fence.run();
    }
  }

  /** Runs a call with nothing else of the key running: a mutation, or a call behind a fence. */
  private void runAlone(KeyBytes key, KeyState state, Call call) {
    // A tokened mutation is resent while its outcome is unknown, before the key moves on.
    IdempotentResends.run(
            call.operation(),
            call.invokedAtMicros(),
            (op, tau) -> run(op, tau, call.timeoutNanos()),
            scheduler)
        .whenComplete(
            (outcome, error) -> {
              boolean unknown =
                  outcome instanceof ClientOutcome.Unknown
                      || SessionAnswers.unwrap(error) instanceof OutcomeUnknownException;
              synchronized (state) {
                state.seen =
                    SessionAnswers.newer(state.seen, SessionAnswers.chosenVersion(outcome));
                if (call.operation().mutates() && unknown) {
                  state.needsFence = true;
                  state.fenceNotBeforeNanos =
                      call.operation() instanceof ClientOperation.Create
                          ? System.nanoTime() + createSettleNanos.getAsLong()
                          : System.nanoTime();
                } else if (call.operation() instanceof ClientOperation.Fence
                    && outcome instanceof ClientOutcome.ReadResult) {
                  state.needsFence = false;
                }
              }
              deliver(call, outcome, error);
              endAlone(key, state);
            });
  }

  /**
   * Lets the key's next calls start, only once the call that ran alone was handed over: a call
   * issued after it is never answered before it.
   */
  private void endAlone(KeyBytes key, KeyState state) {
    synchronized (state) {
      state.exclusive = false;
    }
    continueLater(key, state);
  }

  private void runRead(KeyState state, Read read) {
    KeyBytes key = read.call.operation().key();
    run(read.toRun(), read.call.invokedAtMicros(), read.call.timeoutNanos())
        .whenComplete((outcome, error) -> readEnded(key, state, read, outcome, error));
  }

  private void readEnded(
      KeyBytes key, KeyState state, Read read, ClientOutcome outcome, Throwable error) {
    synchronized (state) {
      read.ended = true;
      read.outcome = outcome;
      read.error = error;
      if (state.delivering) {
        return; // the thread delivering the key's reads hands this one over in its turn
      }
      state.delivering = true;
    }
    deliverReads(state);
    continueLater(key, state);
  }

  /**
   * Hands over the key's ended reads from the oldest on, one thread at a time, stopping at one
   * still running; a read leaves {@link KeyState#reads} only once handed over, so a mutation behind
   * it cannot start before. A read older than the one handed over before it runs again instead: the
   * new run starts after that read ended, so linearizability alone keeps it from being older, and
   * its answer is taken as it is.
   *
   * <p>The rerun starts while this thread still holds the key's delivery, so a rerun answered at
   * once (a runner that fails fast, or an answer that beats {@code whenComplete}) is picked up by
   * this loop rather than by a nested call: on a loaded machine every rerun can be answered that
   * way, and nesting one delivery per rerun overflowed the stack, which CompletableFuture
   * swallowed, leaving the key's delivery taken for good and its reads unanswered.
   */
  private void deliverReads(KeyState state) {
    boolean handedOff = false;
    try {
      handedOff = deliverEndedReads(state);
    } finally {
      if (!handedOff) {
        // Only a Throwable gets here (a caller's code cannot: it runs on callbacks or in its
        // future's dependents, which catch). Give the delivery up so the next ended read resumes
        // it.
        synchronized (state) {
          state.delivering = false;
        }
      }
    }
  }

  /** The loop of {@link #deliverReads}; true once it gave the key's delivery up, as it must. */
  private boolean deliverEndedReads(KeyState state) {
    while (true) {
      Read head;
      Optional<Versioned> value;
      boolean again;
      synchronized (state) {
        assert state.delivering : "delivering reads without holding the key's delivery";
        head = state.reads.peek();
        if (head == null || !head.ended) {
          state.delivering = false;
          if (head == null) {
            state.floor = null; // a later read starts after every earlier one ended
          }
          return true;
        }
        value =
            head.error == null && head.outcome instanceof ClientOutcome.ReadResult r
                ? r.value()
                : null;
        again =
            value != null
                && !head.rerun
                && state.floor != null
                && SessionAnswers.olderThan(value, state.floor);
        if (again) {
          head.ended = false;
          head.rerun = true;
        } else if (value == null) {
          value = state.floor; // a failed read orders nothing
        }
      }
      if (again) {
        counters.readRerun();
        runRead(state, head); // an answer that comes now finds the delivery taken, and returns
        synchronized (state) {
          if (!head.ended) {
            state.delivering = false; // the rerun's answer, when it comes, takes the delivery
            return true;
          }
        }
        continue; // answered already: hand it over here, without nesting
      }
      if (head.lost == null) {
        deliver(head.call, head.outcome, head.error);
      } else {
        SessionAnswers.answerLost(
            head.call.result(), head.call.operation(), head.lost, head.outcome, head.error);
      }
      synchronized (state) {
        state.reads.poll();
        state.floor = value;
        if (value != null && value.isPresent()) {
          state.seen = SessionAnswers.newer(state.seen, value.get().version());
        }
      }
    }
  }

  private static void deliver(Call call, ClientOutcome outcome, Throwable error) {
    if (error != null) {
      call.result().completeExceptionally(SessionAnswers.unwrap(error));
    } else {
      call.result().complete(outcome);
    }
  }

  /**
   * Starts the key's next calls. With nothing queued (the common case) the key may go idle here: a
   * later submit finds nothing running and starts itself. Otherwise the next calls start on this
   * thread — the one that completed the previous call (a node's core or an event loop): starting a
   * call only hands it to a node or a connection and never blocks, and it saves a thread wake-up
   * per call on a contended key. A call that completes at once would recurse through here, so after
   * {@link #MAX_INLINE_STARTS} nested starts the next ones start on {@code callbacks}.
   */
  private void continueLater(KeyBytes key, KeyState state) {
    boolean queued;
    boolean idle;
    synchronized (state) {
      queued = !state.queue.isEmpty();
      idle = state.idle();
    }
    if (!queued) {
      if (idle) {
        forgetIfIdle(key, state);
      }
      return;
    }
    int[] depth = INLINE_DEPTH.get();
    if (depth[0] >= MAX_INLINE_STARTS) {
      callbacks.execute(() -> startReady(key, state));
      return;
    }
    depth[0]++;
    try {
      startReady(key, state);
    } finally {
      depth[0]--;
    }
  }

  /**
   * Drops the key's state if it is still the key's and idle: nothing queued, running or owed a
   * fence, so a later call may start from a fresh one. Called without the state's lock held: the
   * map's lock for the key is taken before the state's, as {@link #enqueue} does.
   */
  private void forgetIfIdle(KeyBytes key, KeyState state) {
    keys.computeIfPresent(
        key,
        (k, current) -> {
          if (current != state) {
            return current;
          }
          synchronized (current) {
            return current.idle() ? null : current;
          }
        });
  }

  private static final int MAX_INLINE_STARTS = 8;
  private static final ThreadLocal<int[]> INLINE_DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private CompletableFuture<ClientOutcome> run(
      ClientOperation operation, long invokedAtMicros, long timeoutNanos) {
    try {
      return runner.run(operation, invokedAtMicros, timeoutNanos);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
