package io.frsm.testkit.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Records client operations as they are invoked and completed, for the linearizability checker and
 * for export as JSON lines.
 *
 * <p>Thread-safe. The clock is read inside the recorder: at {@link #invoke} before the operation is
 * sent, and at {@link #complete} after its reply arrived, so the recorded interval contains the
 * instant the operation took effect. A simulator passes its virtual clock.
 */
public final class HistoryRecorder {
  private final LongSupplier clockNanos;
  // Both lists are guarded by this recorder's monitor.
  private final List<Pending> operations = new ArrayList<>();

  /** The token {@link #invoke} hands out, to be passed back to {@link #complete}. */
  public static final class Handle {
    private final int index;

    private Handle(int index) {
      this.index = index;
    }
  }

  private record Pending(long client, OperationKind kind, Bytes key, Input input, long callNanos) {}

  private record Completion(Output output, long returnNanos) {}

  /** Parallel to {@code operations}; null while the operation is in flight. */
  private final List<Completion> completions = new ArrayList<>();

  /**
   * @param clockNanos the time in nanoseconds; must never go backwards
   */
  public HistoryRecorder(LongSupplier clockNanos) {
    this.clockNanos = Objects.requireNonNull(clockNanos, "clockNanos");
  }

  /** Records the call of an operation. Call it before the operation is issued. */
  public synchronized Handle invoke(long client, OperationKind kind, byte[] key, Input input) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(input, "input");
    input.checkFits(kind);
    operations.add(new Pending(client, kind, Bytes.of(key), input, clockNanos.getAsLong()));
    completions.add(null);
    return new Handle(operations.size() - 1);
  }

  /**
   * Records how the operation ended. Call it after the reply (or failure) arrived.
   *
   * @throws IllegalStateException if the operation was already completed
   * @throws IllegalArgumentException if the operation cannot end with {@code output}
   */
  public synchronized void complete(Handle handle, Output output) {
    Objects.requireNonNull(output, "output");
    Pending call = operations.get(handle.index);
    if (completions.get(handle.index) != null) {
      throw new IllegalStateException("operation " + handle.index + " was already completed");
    }
    if (!output.fits(call.kind())) {
      throw new IllegalArgumentException(
          call.kind().jsonName() + " cannot end with " + output.getClass().getSimpleName());
    }
    long returnNanos = Math.max(call.callNanos(), clockNanos.getAsLong());
    completions.set(handle.index, new Completion(output, returnNanos));
  }

  /**
   * The operations so far, in invocation order. Operations still in flight appear with an {@link
   * Output.Unknown} output and the current time as their return time: they may yet take effect.
   */
  public synchronized List<Operation> history() {
    long now = clockNanos.getAsLong();
    List<Operation> history = new ArrayList<>(operations.size());
    for (int i = 0; i < operations.size(); i++) {
      Pending call = operations.get(i);
      Completion done = completions.get(i);
      Output output = done == null ? Output.UNKNOWN : done.output();
      long returnNanos = done == null ? Math.max(now, call.callNanos()) : done.returnNanos();
      history.add(
          new Operation(
              call.client(),
              call.kind(),
              call.key(),
              call.input(),
              output,
              call.callNanos(),
              returnNanos));
    }
    return history;
  }
}
