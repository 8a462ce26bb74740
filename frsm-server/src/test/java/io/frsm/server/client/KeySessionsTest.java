package io.frsm.server.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.lsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Session ordering with a scripted runner: the test completes each operation by hand. */
class KeySessionsTest {
  private final List<Operation> started = new ArrayList<>();
  private final List<CompletableFuture<Outcome>> running = new ArrayList<>();
  private final ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(1);
  private final KeySessions sessions =
      new KeySessions(this::run, Runnable::run, scheduler, TimeUnit.MILLISECONDS.toNanos(1));

  private static final Key A = Key.of("a".getBytes(StandardCharsets.UTF_8));
  private static final Key B = Key.of("b".getBytes(StandardCharsets.UTF_8));
  private static final Version V = new Version(5, 0);

  private synchronized CompletableFuture<Outcome> run(Operation op, long tau) {
    CompletableFuture<Outcome> f = new CompletableFuture<>();
    started.add(op);
    running.add(f);
    notifyAll();
    return f;
  }

  private synchronized Operation awaitStarted(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (started.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("operation " + count + " never started: " + started);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return started.get(count - 1);
  }

  private synchronized void finish(int index, Outcome outcome) {
    running.get(index).complete(outcome);
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  @Test
  void operationsOnOneKey_runOneAtATime_inIssueOrder_whileOtherKeysDoNotWait() throws Exception {
    CompletableFuture<Outcome> cas = sessions.submit(new Operation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<Outcome> get = sessions.submit(new Operation.Get(A), 0);
    sessions.submit(new Operation.Get(B), 0);
    awaitStarted(2);
    assertInstanceOf(Operation.Get.class, started.get(1));
    assertEquals(B, started.get(1).key(), "key b does not wait for key a");
    assertFalse(get.isDone());
    finish(0, new Outcome.Written(V.next()));
    assertEquals(A, awaitStarted(3).key(), "the get on a starts only after the cas ended");
    assertEquals(new Outcome.Written(V.next()), cas.get());
  }

  @Test
  void afterAnUnknownMutation_theKeyIsFencedBeforeItsNextOperation() throws Exception {
    sessions.submit(new Operation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new Outcome.Unknown("timed out"));
    CompletableFuture<Outcome> next = sessions.submit(new Operation.Get(A), 0);
    assertInstanceOf(Operation.Fence.class, awaitStarted(2), "a fence runs first");
    finish(1, new Outcome.ReadResult(Optional.empty()));
    assertInstanceOf(Operation.Get.class, awaitStarted(3));
    finish(2, new Outcome.ReadResult(Optional.empty()));
    assertTrue(next.get() instanceof Outcome.ReadResult);
    // Resolved: the key's next operation runs without another fence.
    sessions.submit(new Operation.Get(A), 0);
    assertInstanceOf(Operation.Get.class, awaitStarted(4));
  }

  @Test
  void aCallersOwnFence_servesAsTheFence() throws Exception {
    sessions.submit(new Operation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new Outcome.Unknown("timed out"));
    sessions.submit(new Operation.Fence(A), 0);
    awaitStarted(2);
    finish(1, new Outcome.ReadResult(Optional.empty()));
    sessions.submit(new Operation.Get(A), 0);
    assertInstanceOf(Operation.Get.class, awaitStarted(3), "no second fence");
  }

  @Test
  void aFailedFence_failsTheNextOperationWithoutRunningIt_andTheKeyStaysMarked() throws Exception {
    sessions.submit(new Operation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new Outcome.Unknown("timed out"));
    CompletableFuture<Outcome> next = sessions.submit(new Operation.Cas(A, V, new byte[] {2}), 0);
    awaitStarted(2);
    finish(1, new Outcome.NotExecuted("no quorum"));
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, next::get);
    assertInstanceOf(NotExecutedException.class, e.getCause());
    sessions.submit(new Operation.Get(A), 0);
    assertInstanceOf(Operation.Fence.class, awaitStarted(3), "fenced again before the get");
  }
}
