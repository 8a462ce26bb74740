package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.testkit.history.Bytes;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.Input;
import io.frsm.testkit.history.OperationKind;
import io.frsm.testkit.history.Output;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Synchronous client calls recorded in a {@link HistoryRecorder} for the linearizability checker:
 * each is invoked just before the call and completed just after its answer, under the caller's
 * process id (one call open per id at a time, as the checker assumes). A failure is recorded, then
 * rethrown.
 */
final class RecordedCalls {
  private final HistoryRecorder recorder;

  RecordedCalls(HistoryRecorder recorder) {
    this.recorder = recorder;
  }

  Optional<Versioned> get(FrsmClient c, long process, byte[] key) {
    return read(OperationKind.GET, process, key, () -> c.get(key));
  }

  Optional<Versioned> fence(FrsmClient c, long process, byte[] key) {
    return read(OperationKind.FENCE, process, key, () -> c.fence(key));
  }

  private Optional<Versioned> read(
      OperationKind kind, long process, byte[] key, Supplier<Optional<Versioned>> call) {
    HistoryRecorder.Handle h = recorder.invoke(process, kind, key, Input.none());
    try {
      Optional<Versioned> r = call.get();
      recorder.complete(h, Output.ofRead(r));
      return r;
    } catch (FrsmException e) {
      recorder.complete(h, Output.ofFailure(e));
      throw e;
    }
  }

  void create(FrsmClient c, long process, byte[] key, byte[] value) {
    HistoryRecorder.Handle h =
        recorder.invoke(process, OperationKind.CREATE, key, Input.create(Bytes.of(value)));
    try {
      recorder.complete(h, new Output.Written(c.create(key, value)));
    } catch (FrsmException e) {
      recorder.complete(h, Output.ofFailure(e));
      throw e;
    }
  }

  void cas(FrsmClient c, long process, byte[] key, Version expected, byte[] value) {
    HistoryRecorder.Handle h =
        recorder.invoke(process, OperationKind.CAS, key, Input.cas(expected, Bytes.of(value)));
    try {
      recorder.complete(h, new Output.Written(c.cas(key, expected, value)));
    } catch (FrsmException e) {
      recorder.complete(h, Output.ofFailure(e));
      throw e;
    }
  }
}
