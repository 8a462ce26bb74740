package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Session ordering with a scripted runner: the test completes each operation by hand. */
class KeySessionsTest {
  private final List<ClientOperation> started = new ArrayList<>();
  private final List<CompletableFuture<ClientOutcome>> running = new ArrayList<>();
  private final ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(1);
  private final KeySessions sessions =
      new KeySessions(this::run, Runnable::run, scheduler, TimeUnit.MILLISECONDS.toNanos(1));

  private static final KeyBytes A = KeyBytes.of("a".getBytes(StandardCharsets.UTF_8));
  private static final KeyBytes B = KeyBytes.of("b".getBytes(StandardCharsets.UTF_8));
  private static final Version V = new Version(5, 0);

  private synchronized CompletableFuture<ClientOutcome> run(ClientOperation op, long tau) {
    CompletableFuture<ClientOutcome> f = new CompletableFuture<>();
    started.add(op);
    running.add(f);
    notifyAll();
    return f;
  }

  private synchronized ClientOperation awaitStarted(int count) throws InterruptedException {
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

  private synchronized void finish(int index, ClientOutcome outcome) {
    running.get(index).complete(outcome);
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  @Test
  void operationsOnOneKey_runOneAtATime_inIssueOrder_whileOtherKeysDoNotWait() throws Exception {
    CompletableFuture<ClientOutcome> cas =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> get = sessions.submit(new ClientOperation.Get(A), 0);
    sessions.submit(new ClientOperation.Get(B), 0);
    awaitStarted(2);
    assertInstanceOf(ClientOperation.Get.class, started.get(1));
    assertEquals(B, started.get(1).key(), "key b does not wait for key a");
    assertFalse(get.isDone());
    finish(0, new ClientOutcome.Written(V.next()));
    assertEquals(A, awaitStarted(3).key(), "the get on a starts only after the cas ended");
    assertEquals(new ClientOutcome.Written(V.next()), cas.get());
  }

  @Test
  void afterAnUnknownMutation_theKeyIsFencedBeforeItsNextOperation() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Unknown("timed out"));
    CompletableFuture<ClientOutcome> next = sessions.submit(new ClientOperation.Get(A), 0);
    assertInstanceOf(ClientOperation.Fence.class, awaitStarted(2), "a fence runs first");
    finish(1, new ClientOutcome.ReadResult(Optional.empty()));
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(3));
    finish(2, new ClientOutcome.ReadResult(Optional.empty()));
    assertTrue(next.get() instanceof ClientOutcome.ReadResult);
    // Resolved: the key's next operation runs without another fence.
    sessions.submit(new ClientOperation.Get(A), 0);
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(4));
  }

  @Test
  void aCallersOwnFence_servesAsTheFence() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Unknown("timed out"));
    sessions.submit(new ClientOperation.Fence(A), 0);
    awaitStarted(2);
    finish(1, new ClientOutcome.ReadResult(Optional.empty()));
    sessions.submit(new ClientOperation.Get(A), 0);
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(3), "no second fence");
  }

  @Test
  void aFailedFence_failsTheNextOperationWithoutRunningIt_andTheKeyStaysMarked() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Unknown("timed out"));
    CompletableFuture<ClientOutcome> next =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {2}), 0);
    awaitStarted(2);
    finish(1, new ClientOutcome.NotExecuted("no quorum"));
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, next::get);
    assertInstanceOf(NotExecutedException.class, e.getCause());
    sessions.submit(new ClientOperation.Get(A), 0);
    assertInstanceOf(ClientOperation.Fence.class, awaitStarted(3), "fenced again before the get");
  }

  private static ClientOutcome read(Version version) {
    return new ClientOutcome.ReadResult(Optional.of(new Versioned(new byte[] {1}, version)));
  }

  private static final ClientOutcome ABSENT = new ClientOutcome.ReadResult(Optional.empty());

  @Test
  void readsWithNoMutationBeforeThem_runConcurrently() throws Exception {
    for (int i = 0; i < 3; i++) {
      sessions.submit(new ClientOperation.Get(A), 0);
    }
    awaitStarted(3);
    assertEquals(
        List.of(new ClientOperation.Get(A), new ClientOperation.Get(A), new ClientOperation.Get(A)),
        started);
  }

  @Test
  void aMutation_waitsForTheReadsBeforeIt_andTheReadsAfterItWaitForIt() throws Exception {
    sessions.submit(new ClientOperation.Get(A), 0);
    sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> cas =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> after = sessions.submit(new ClientOperation.Get(A), 0);
    awaitStarted(2);
    finish(1, read(V));
    finish(0, read(V));
    assertInstanceOf(
        ClientOperation.Cas.class, awaitStarted(3), "the cas starts once both reads ended");
    synchronized (this) {
      assertEquals(3, started.size(), "the read issued after the cas waits for it");
    }
    finish(2, new ClientOutcome.Written(V.next()));
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(4));
    finish(3, read(V.next()));
    assertEquals(new ClientOutcome.Written(V.next()), cas.get());
    assertEquals(read(V.next()), after.get());
  }

  @Test
  void concurrentReads_areDeliveredInIssueOrder() throws Exception {
    CompletableFuture<ClientOutcome> first = sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> second = sessions.submit(new ClientOperation.Get(A), 0);
    awaitStarted(2);
    finish(1, read(V.next()));
    assertFalse(second.isDone(), "the second read waits for the first to be delivered");
    finish(0, read(V));
    assertEquals(read(V), first.get());
    assertEquals(read(V.next()), second.get(), "newer than the first: delivered as it is");
    assertEquals(0, sessions.counters().readsRerun());
  }

  @Test
  void aReadOlderThanTheReadBeforeIt_runsAgain_andItsSecondAnswerIsTaken() throws Exception {
    CompletableFuture<ClientOutcome> first = sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> second = sessions.submit(new ClientOperation.Get(A), 0);
    awaitStarted(2);
    finish(1, read(V));
    finish(0, read(V.next()));
    assertEquals(read(V.next()), first.get());
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(3), "the older read runs again");
    assertFalse(second.isDone());
    finish(2, read(V.next().next()));
    assertEquals(read(V.next().next()), second.get());
    assertEquals(1, sessions.counters().readsRerun());
  }

  @Test
  void absentAgainstPresent_cannotBeOrdered_soTheLaterReadRunsAgain() throws Exception {
    sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> second = sessions.submit(new ClientOperation.Get(A), 0);
    sessions.submit(new ClientOperation.Get(B), 0);
    sessions.submit(new ClientOperation.Get(B), 0);
    awaitStarted(4);
    finish(0, read(V));
    finish(1, ABSENT);
    finish(2, ABSENT);
    finish(3, read(V));
    assertEquals(
        List.of(A, B),
        List.of(awaitStarted(5).key(), awaitStarted(6).key()),
        "both keys' second reads run again");
    finish(4, ABSENT);
    assertEquals(ABSENT, second.get(), "a deletion in between: absent is the newer answer");
    assertEquals(2, sessions.counters().readsRerun());
  }

  @Test
  void aFailedRead_isDeliveredInItsTurn_andDoesNotOrderTheNextOne() throws Exception {
    CompletableFuture<ClientOutcome> first = sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> second = sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> third = sessions.submit(new ClientOperation.Get(A), 0);
    awaitStarted(3);
    finish(0, read(V.next()));
    finish(1, new ClientOutcome.NotExecuted("no quorum"));
    finish(2, read(V));
    assertEquals(new ClientOutcome.NotExecuted("no quorum"), second.get());
    assertEquals(read(V.next()), first.get());
    assertInstanceOf(
        ClientOperation.Get.class, awaitStarted(4), "the third is still ordered after the first");
    finish(3, read(V.next()));
    assertEquals(read(V.next()), third.get());
  }

  /**
   * Real threads, answers chosen to make reads overlap and come back older than the read before
   * them. Every read of the first round starts before any is answered (a register's reads with no
   * mutation before them run concurrently); then four threads answer them, and any reruns, in
   * whatever order they get to them, each writing the register first (a write racing the read) and
   * answering either the value at the read's start or the newest value: both are values the
   * register held during the read, so the history stays linearizable. Reads are answered newest and
   * oldest in turn, so every odd read of the first round answers the value before any write, older
   * than the read before it, which answers at least the first write: at least half of the reads
   * must run again, whatever the threads' timing. The session must hand the answers over in issue
   * order and never going back in version.
   */
  @Test
  void underRacingWrites_aSessionsReadsNeverGoBackInTime() throws Exception {
    int count = 2_000;
    AtomicLong register = new AtomicLong();
    AtomicLong runs = new AtomicLong();
    BlockingQueue<Runnable> unanswered = new LinkedBlockingQueue<>();
    KeySessions racing =
        new KeySessions(
            (op, tau) -> {
              CompletableFuture<ClientOutcome> f = new CompletableFuture<>();
              boolean newest = runs.getAndIncrement() % 2 == 0;
              long atStart = register.get();
              unanswered.add(
                  () -> {
                    long afterWrite = register.incrementAndGet();
                    f.complete(read(new Version(1, newest ? afterWrite : atStart)));
                  });
              return f;
            },
            Runnable::run,
            scheduler,
            0);
    AtomicReferenceArray<CompletableFuture<ClientOutcome>> reads =
        new AtomicReferenceArray<>(count);
    List<Integer> answeredBeforeTheReadBefore = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<ClientOutcome>> checked = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int index = i;
      CompletableFuture<ClientOutcome> f = racing.submit(new ClientOperation.Get(A), 0);
      reads.set(i, f);
      // Which thread runs this callback is up to CompletableFuture (a thread waiting in get() may
      // run it), so the order callbacks run in says nothing. What KeySessions promises, with
      // callbacks run inline, is that a read's future completes only once every earlier read's did.
      checked.add(
          f.whenComplete(
              (outcome, error) -> {
                if (index > 0 && !reads.get(index - 1).isDone()) {
                  answeredBeforeTheReadBefore.add(index);
                }
              }));
    }
    assertEquals(count, runs.get(), "every read started before any was answered");
    ExecutorService answerers = Executors.newFixedThreadPool(4);
    try {
      for (int t = 0; t < 4; t++) {
        answerers.execute(
            () -> {
              try {
                while (true) {
                  unanswered.take().run();
                }
              } catch (InterruptedException stopped) {
                // the test is over
              }
            });
      }
      try {
        CompletableFuture.allOf(checked.toArray(CompletableFuture[]::new))
            .get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException stuck) {
        // Seen twice in full builds on a loaded 2-CPU machine: reruns answered before their
        // callback was attached nested one delivery per rerun until the stack overflowed (now
        // rerunsAnsweredAtOnce_areHandedOverWithoutNesting). Say where it stood if it comes back.
        int firstOpen = -1;
        int open = 0;
        for (int i = 0; i < count; i++) {
          if (!reads.get(i).isDone()) {
            open++;
            firstOpen = firstOpen < 0 ? i : firstOpen;
          }
        }
        throw new AssertionError(
            "reads not answered after 30 s: "
                + open
                + " open, the first #"
                + firstOpen
                + "; runs started "
                + runs.get()
                + ", runs not yet answered "
                + unanswered.size()
                + ", reruns "
                + racing.counters().readsRerun()
                + ", answerer pool terminated "
                + answerers.isTerminated(),
            stuck);
      }
    } finally {
      answerers.shutdownNow();
    }
    assertEquals(List.of(), answeredBeforeTheReadBefore, "reads answered in issue order");
    long previous = -1;
    for (int i = 0; i < count; i++) {
      ClientOutcome o = reads.get(i).get();
      long ts = ((ClientOutcome.ReadResult) o).value().orElseThrow().version().timestamp();
      assertTrue(ts >= previous, "read " + i + " went back in time: " + ts + " after " + previous);
      previous = ts;
    }
    assertTrue(
        racing.counters().readsRerun() >= count / 2,
        "every odd read of the first round is older than the one before it; reruns: "
            + racing.counters().readsRerun());
  }

  /**
   * Reruns answered at once (a runner that fails fast or answers before the rerun's callback is
   * attached, which a loaded machine makes common): each used to be handed over by a nested call,
   * one stack level per rerun, until a StackOverflowError — swallowed by CompletableFuture — left
   * the key's delivery taken and every later read unanswered. Here every read but the first comes
   * back older than the one before it, and every rerun is answered inside the runner.
   */
  @Test
  void rerunsAnsweredAtOnce_areHandedOverWithoutNesting() throws Exception {
    int count = 50_000;
    List<CompletableFuture<ClientOutcome>> firstRuns = new ArrayList<>();
    AtomicLong newest = new AtomicLong(2 * count);
    KeySessions inline =
        new KeySessions(
            (op, tau) -> {
              if (firstRuns.size() < count) {
                CompletableFuture<ClientOutcome> f = new CompletableFuture<>();
                firstRuns.add(f);
                return f;
              }
              return CompletableFuture.completedFuture(
                  read(new Version(1, newest.incrementAndGet())));
            },
            Runnable::run,
            scheduler,
            0);
    List<CompletableFuture<ClientOutcome>> reads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      reads.add(inline.submit(new ClientOperation.Get(A), 0));
    }
    assertEquals(count, firstRuns.size());
    for (int i = count - 1; i > 0; i--) {
      firstRuns
          .get(i)
          .complete(read(new Version(1, i))); // each older than #0's, and the one before
    }
    // A thread of default stack size, as the network thread answering in a client would be.
    Thread answerer = new Thread(() -> firstRuns.get(0).complete(read(new Version(1, count))));
    answerer.start();
    answerer.join(TimeUnit.SECONDS.toMillis(60));
    assertFalse(answerer.isAlive(), "answering the first read returned");
    long previous = -1;
    for (int i = 0; i < count; i++) {
      assertTrue(reads.get(i).isDone(), "read #" + i + " answered");
      long ts =
          ((ClientOutcome.ReadResult) reads.get(i).get())
              .value()
              .orElseThrow()
              .version()
              .timestamp();
      assertTrue(ts >= previous, "read " + i + " went back in time: " + ts + " after " + previous);
      previous = ts;
    }
    assertEquals(count - 1, inline.counters().readsRerun(), "every read but the first reran");
    assertEquals(0, inline.activeKeys(), "the key went idle");
  }

  @Test
  void aCasExpectingAVersionOlderThanOneSeen_isNotSent_aReadAnswersItWithTheMismatch()
      throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> loser =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {2}), 0);
    CompletableFuture<ClientOutcome> get = sessions.submit(new ClientOperation.Get(A), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Written(V.next()));
    awaitStarted(3);
    assertEquals(
        List.of(new ClientOperation.Get(A), new ClientOperation.Get(A)),
        started.subList(1, 3),
        "the losing cas runs as a read, beside the get issued after it");
    finish(1, read(V.next()));
    finish(2, read(V.next()));
    assertEquals(
        new ClientOutcome.Mismatch(V, Optional.of(new Versioned(new byte[] {1}, V.next()))),
        loser.get());
    assertEquals(read(V.next()), get.get());
    assertEquals(1, sessions.counters().casUnsent());
  }

  @Test
  void aDeleteExpectingAVersionOlderThanOneRead_isAnsweredByARead_absentIncluded()
      throws Exception {
    sessions.submit(new ClientOperation.Get(A), 0);
    CompletableFuture<ClientOutcome> delete = sessions.submit(new ClientOperation.Delete(A, V), 0);
    awaitStarted(1);
    finish(0, read(V.next()));
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(2));
    finish(1, ABSENT);
    assertEquals(new ClientOutcome.Mismatch(V, Optional.empty()), delete.get(), "deleted since");
  }

  @Test
  void aCasExpectingTheVersionSeen_isSent() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> next =
        sessions.submit(new ClientOperation.Cas(A, V.next(), new byte[] {2}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Written(V.next()));
    assertEquals(new ClientOperation.Cas(A, V.next(), new byte[] {2}).key(), awaitStarted(2).key());
    assertInstanceOf(ClientOperation.Cas.class, started.get(1));
    finish(1, new ClientOutcome.Written(V.next().next()));
    assertEquals(new ClientOutcome.Written(V.next().next()), next.get());
  }

  @Test
  void aLosingCasWhoseReadFails_isNotExecuted_andNeedsNoFence() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> loser =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {2}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Written(V.next()));
    awaitStarted(2);
    finish(1, new ClientOutcome.Unknown("read timed out"));
    assertInstanceOf(ClientOutcome.NotExecuted.class, loser.get(), "the cas itself was never sent");
    sessions.submit(new ClientOperation.Get(A), 0);
    assertInstanceOf(ClientOperation.Get.class, awaitStarted(3), "no fence");
  }

  @Test
  void aReadForALosingCasThatFindsAnOlderVersion_failsLoudly() throws Exception {
    sessions.submit(new ClientOperation.Cas(A, V, new byte[] {1}), 0);
    CompletableFuture<ClientOutcome> loser =
        sessions.submit(new ClientOperation.Cas(A, V, new byte[] {2}), 0);
    awaitStarted(1);
    finish(0, new ClientOutcome.Written(V.next()));
    awaitStarted(2);
    finish(1, read(V)); // impossible for a linearizable read: the session invariant is broken
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, loser::get);
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }
}
