package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session ordering under real concurrency: many caller threads on a few hot keys, operations
 * answered at once on the caller's thread or later on other threads, keys going idle and busy again
 * all the time. Each key's state has its own lock and leaves the key map only when idle; the runner
 * checks what that must keep true: a mutation never runs beside another call on its key, and every
 * call is answered.
 */
class KeySessionsConcurrencyTest {
  private static final int CALLERS = 16;
  private static final int CALLS_PER_CALLER = 2_000;
  private static final List<KeyBytes> KEYS =
      List.of(key("hot-0"), key("hot-1"), key("hot-2"), key("hot-3"));

  private final ExecutorService completers = Executors.newFixedThreadPool(3);
  private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
  private final ExclusionCheck check = new ExclusionCheck();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong nextTimestamp = new AtomicLong(1);

  private static KeyBytes key(String name) {
    return KeyBytes.of(name.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void stop() throws InterruptedException {
    completers.shutdownNow();
    scheduler.shutdownNow();
    assertTrue(completers.awaitTermination(10, TimeUnit.SECONDS));
  }

  /** Per key, how many reads and mutations the runner has running now. */
  private final class ExclusionCheck {
    private final Map<KeyBytes, int[]> running = new HashMap<>(); // [reads, mutations]

    synchronized void started(ClientOperation op) {
      int[] r = running.computeIfAbsent(op.key(), k -> new int[2]);
      if (op.mutates() && (r[0] > 0 || r[1] > 0)) {
        violations.add(op + " started beside " + r[0] + " reads and " + r[1] + " mutations");
      } else if (!op.mutates() && r[1] > 0) {
        violations.add(op + " started beside a running mutation");
      }
      r[op.mutates() ? 1 : 0]++;
    }

    synchronized void ended(ClientOperation op) {
      running.get(op.key())[op.mutates() ? 1 : 0]--;
    }
  }

  /**
   * Answers a third of the calls before returning (as a runner that fails fast, or an answer that
   * beats the caller), the rest from other threads; 5% of creates end with an unknown outcome, so
   * the key is fenced before its next call.
   */
  private CompletableFuture<ClientOutcome> run(ClientOperation op, long tau) {
    check.started(op);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    ClientOutcome outcome;
    if (!(op instanceof ClientOperation.Create)) {
      outcome = new ClientOutcome.ReadResult(Optional.empty()); // gets and fences
    } else if (random.nextInt(20) == 0) {
      outcome = new ClientOutcome.Unknown("lost in this test");
    } else {
      outcome = new ClientOutcome.Written(new Version(1, nextTimestamp.getAndIncrement()));
    }
    if (random.nextInt(3) == 0) {
      check.ended(op);
      return CompletableFuture.completedFuture(outcome);
    }
    CompletableFuture<ClientOutcome> answer = new CompletableFuture<>();
    completers.execute(
        () -> {
          check.ended(op);
          answer.complete(outcome);
        });
    return answer;
  }

  @Test
  void manyCallersOnHotKeys_mutationsRunAlone_everyCallIsAnswered_andKeysGoIdle() throws Exception {
    KeySessions sessions =
        new KeySessions(this::run, Runnable::run, scheduler, TimeUnit.MICROSECONDS.toNanos(50));
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    for (int c = 0; c < CALLERS; c++) {
      boolean blocking = c % 2 == 0;
      Thread caller =
          new Thread(
              () -> {
                try {
                  start.await();
                  ThreadLocalRandom random = ThreadLocalRandom.current();
                  for (int i = 0; i < CALLS_PER_CALLER; i++) {
                    KeyBytes key = KEYS.get(random.nextInt(KEYS.size()));
                    ClientOperation op =
                        random.nextInt(100) < 60
                            ? new ClientOperation.Get(key)
                            : new ClientOperation.Create(key, new byte[] {1});
                    CompletableFuture<ClientOutcome> call =
                        blocking ? sessions.submitForBlockingCaller(op, 0) : sessions.submit(op, 0);
                    // Every third call of an async caller is not waited for: its key keeps calls
                    // queued while the caller moves on.
                    if (blocking || i % 3 != 0) {
                      call.get(30, TimeUnit.SECONDS);
                    }
                  }
                } catch (java.util.concurrent.ExecutionException e) {
                  // A call behind a failed fence may fail not executed; none here should fail.
                  failures.add(e.getCause());
                } catch (Exception e) {
                  failures.add(e);
                }
              },
              "session-caller-" + c);
      caller.start();
      callers.add(caller);
    }
    start.countDown();
    for (Thread caller : callers) {
      caller.join(TimeUnit.SECONDS.toMillis(60));
      assertTrue(!caller.isAlive(), caller.getName() + " still waits for an answer");
    }
    assertEquals(List.of(), new ArrayList<>(failures));
    assertEquals(List.of(), new ArrayList<>(violations));
    // A last read per key settles a fence still owed after an unknown create; calls not waited
    // for end on their own; then every key has gone idle and left the map.
    for (KeyBytes key : KEYS) {
      sessions.submitForBlockingCaller(new ClientOperation.Get(key), 0).get(30, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sessions.activeKeys() > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // condition wait with a deadline
    }
    assertEquals(0, sessions.activeKeys(), "keys left with calls queued or running");
    assertEquals(List.of(), new ArrayList<>(violations));
  }
}
