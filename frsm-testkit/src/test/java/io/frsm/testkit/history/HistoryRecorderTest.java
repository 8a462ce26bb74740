package io.frsm.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HistoryRecorderTest {
  private static final byte[] KEY = {'k'};

  @Test
  void recordsCallAndReturnTimesFromTheSuppliedClock() {
    AtomicLong clock = new AtomicLong(100);
    HistoryRecorder recorder = new HistoryRecorder(clock::get);
    HistoryRecorder.Handle handle =
        recorder.invoke(3, OperationKind.CREATE, KEY, Input.create(Bytes.utf8("a")));
    clock.set(250);
    recorder.complete(handle, new Output.Written(new Version(0, 0)));

    Operation op = recorder.history().get(0);
    assertEquals(3, op.client());
    assertEquals(100, op.callNanos());
    assertEquals(250, op.returnNanos());
    assertEquals(new Output.Written(new Version(0, 0)), op.output());
  }

  @Test
  void operationStillInFlight_appearsUnknownAtTheSnapshotTime() {
    AtomicLong clock = new AtomicLong(10);
    HistoryRecorder recorder = new HistoryRecorder(clock::get);
    recorder.invoke(1, OperationKind.GET, KEY, Input.none());
    clock.set(99);
    Operation op = recorder.history().get(0);
    assertEquals(Output.UNKNOWN, op.output());
    assertEquals(99, op.returnNanos());
  }

  @Test
  void completingTwice_isRejected() {
    HistoryRecorder recorder = new HistoryRecorder(() -> 0);
    HistoryRecorder.Handle handle = recorder.invoke(1, OperationKind.GET, KEY, Input.none());
    recorder.complete(handle, Output.ABSENT);
    assertThrows(IllegalStateException.class, () -> recorder.complete(handle, Output.ABSENT));
  }

  @Test
  void outputTheOperationCannotHave_isRejected() {
    HistoryRecorder recorder = new HistoryRecorder(() -> 0);
    HistoryRecorder.Handle handle = recorder.invoke(1, OperationKind.GET, KEY, Input.none());
    assertThrows(IllegalArgumentException.class, () -> recorder.complete(handle, Output.DELETED));
  }

  @Test
  void apiExceptions_mapToOutputs() {
    assertEquals(
        new Output.CasMismatch(Optional.empty()),
        Output.ofFailure(new CasMismatchException(new Version(0, 0), Optional.empty())));
    assertEquals(Output.UNKNOWN, Output.ofFailure(new OutcomeUnknownException("timed out")));
    assertEquals(Output.UNKNOWN, Output.ofFailure(new IllegalStateException("lost reply")));
  }

  @Test
  void concurrentClients_recordEveryOperationConsistently() throws Exception {
    AtomicLong clock = new AtomicLong();
    HistoryRecorder recorder = new HistoryRecorder(clock::incrementAndGet);
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> clients = new ArrayList<>();
      for (int client = 0; client < 4; client++) {
        long id = client;
        clients.add(
            executor.submit(
                () -> {
                  for (int i = 0; i < 1000; i++) {
                    HistoryRecorder.Handle h =
                        recorder.invoke(id, OperationKind.GET, KEY, Input.none());
                    recorder.complete(h, Output.ABSENT);
                  }
                }));
      }
      for (Future<?> client : clients) {
        client.get(30, TimeUnit.SECONDS);
      }
    } finally {
      executor.shutdownNow();
      assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
    }
    List<Operation> history = recorder.history();
    assertEquals(4000, history.size());
    for (Operation op : history) {
      assertEquals(Output.ABSENT, op.output());
      assertTrue(op.callNanos() < op.returnNanos());
    }
    assertTrue(new LinearizabilityChecker().check(history).isLinearizable());
  }
}
