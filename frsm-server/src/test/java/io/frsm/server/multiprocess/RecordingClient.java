package io.frsm.server.multiprocess;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.testkit.history.Bytes;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.Input;
import io.frsm.testkit.history.OperationKind;
import io.frsm.testkit.history.Output;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A client that records every operation in a {@link HistoryRecorder} and gives each calling thread
 * its own underlying client (one application instance per thread, with its own sessions) and its
 * own history process id. Callers use the synchronous methods, so each process has at most one
 * operation open, as the linearizability checker assumes.
 */
final class RecordingClient implements FrsmClient {
  private record Bound(long process, FrsmClient client) {}

  private final HistoryRecorder recorder;
  private final Supplier<FrsmClient> newClient;
  private final AtomicLong nextProcess = new AtomicLong();
  private final ThreadLocal<Bound> bound = new ThreadLocal<>();
  private final ConcurrentLinkedQueue<FrsmClient> opened = new ConcurrentLinkedQueue<>();

  RecordingClient(HistoryRecorder recorder, Supplier<FrsmClient> newClient) {
    this.recorder = recorder;
    this.newClient = newClient;
  }

  private Bound bound() {
    Bound b = bound.get();
    if (b == null) {
      FrsmClient c = newClient.get();
      opened.add(c);
      b = new Bound(nextProcess.getAndIncrement(), c);
      bound.set(b);
    }
    return b;
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    Bound b = bound();
    return recorded(
        recorder.invoke(b.process(), OperationKind.GET, key, Input.none()),
        () -> b.client().getAsync(key),
        Output::ofRead);
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    Bound b = bound();
    return recorded(
        recorder.invoke(b.process(), OperationKind.CREATE, key, Input.create(Bytes.of(value))),
        () -> b.client().createAsync(key, value),
        Output.Written::new);
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    Bound b = bound();
    return recorded(
        recorder.invoke(
            b.process(), OperationKind.CAS, key, Input.cas(expected, Bytes.of(newValue))),
        () -> b.client().casAsync(key, expected, newValue),
        Output.Written::new);
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    Bound b = bound();
    return recorded(
        recorder.invoke(b.process(), OperationKind.DELETE, key, Input.delete(expected)),
        () -> b.client().deleteAsync(key, expected),
        done -> new Output.Deleted());
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    Bound b = bound();
    return recorded(
        recorder.invoke(b.process(), OperationKind.FENCE, key, Input.none()),
        () -> b.client().fenceAsync(key),
        Output::ofRead);
  }

  /** Completes the recorded operation before the caller sees the result. */
  private <T> CompletableFuture<T> recorded(
      HistoryRecorder.Handle handle,
      Supplier<CompletableFuture<T>> call,
      Function<T, Output> output) {
    CompletableFuture<T> result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      recorder.complete(handle, Output.ofFailure(e));
      throw e;
    }
    return result.whenComplete(
        (value, error) ->
            recorder.complete(
                handle, error == null ? output.apply(value) : Output.ofFailure(unwrap(error))));
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  /** Closes every underlying client (operations in flight fail). */
  @Override
  public void close() {
    FrsmClient c;
    while ((c = opened.poll()) != null) {
      c.close();
    }
  }
}
