package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the client resends a tokened mutation while its outcome is unknown. */
class IdempotentResendsTest {
  private static final byte[] TOKEN = new byte[16];
  private static final Version V = new Version(3, 4);

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<ClientOperation> sent = new ArrayList<>();
  private final ArrayDeque<ClientOutcome> answers = new ArrayDeque<>();

  static {
    TOKEN[0] = 42;
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private ClientOutcome run(ClientOperation op) throws Exception {
    return IdempotentResends.run(
            op,
            0,
            (o, tau) -> {
              synchronized (sent) {
                sent.add(o);
                return CompletableFuture.completedFuture(answers.poll());
              }
            },
            scheduler)
        .get(10, TimeUnit.SECONDS);
  }

  /** As {@link #run}, on a clock that moves by {@code stepNanos} at each attempt. */
  private ClientOutcome runSteppingClock(ClientOperation op, long stepNanos) throws Exception {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    return IdempotentResends.run(
            op,
            0,
            (o, tau) -> {
              synchronized (sent) {
                sent.add(o);
                clock.addAndGet(stepNanos); // the attempt's own wait for its answer
                return CompletableFuture.completedFuture(answers.poll());
              }
            },
            scheduler,
            clock::get)
        .get(10, TimeUnit.SECONDS);
  }

  private static ClientOperation.Create create(ClientOperation.Hint hint) {
    return new ClientOperation.Create(KeyBytes.wrap(new byte[] {1}), new byte[] {2}, hint);
  }

  private static ClientOperation.Cas cas(ClientOperation.Hint hint) {
    return new ClientOperation.Cas(KeyBytes.wrap(new byte[] {1}), V, new byte[] {2}, hint);
  }

  @Test
  void unknownThenWritten_resendsOnceWithTheSameTokenAndTheFlag() throws Exception {
    answers.add(new ClientOutcome.Unknown("timeout"));
    answers.add(new ClientOutcome.Written(V.next()));
    assertEquals(
        new ClientOutcome.Written(V.next()), run(cas(new ClientOperation.Hint(TOKEN, false))));
    assertEquals(2, sent.size());
    assertFalse(sent.get(0).hint().resend());
    assertTrue(sent.get(1).hint().resend());
    assertArrayEquals(TOKEN, sent.get(1).hint().token());
  }

  /**
   * The purged-create bound (docs/PROTOCOL.md "Idempotent resends"): no resend goes out later than
   * {@link IdempotentResends#RESEND_WINDOW_NANOS} after the first attempt, however long each
   * attempt waited; the outcome then stays unknown.
   */
  @Test
  void noResendGoesOutPastTheWindow_theOutcomeStaysUnknown() throws Exception {
    for (int i = 0; i <= IdempotentResends.MAX_RESENDS; i++) {
      answers.add(new ClientOutcome.Unknown("timeout"));
    }
    // Each attempt takes 40% of the window: the first and two resends fit (0, 0.4, 0.8), the third
    // (1.2) would not.
    long step = IdempotentResends.RESEND_WINDOW_NANOS * 2 / 5;
    ClientOutcome.Unknown u =
        assertInstanceOf(
            ClientOutcome.Unknown.class,
            runSteppingClock(create(new ClientOperation.Hint(TOKEN, false)), step));
    assertEquals(3, sent.size(), "the first attempt and the resends inside the window: " + sent);
    assertTrue(u.reason().contains("after the first attempt"), u.reason());
  }

  @Test
  void theWindow_isFarBelowTheDefaultTombstoneGrace_andHoldsEveryResendOfTheDefaultTimeout() {
    // lsm.tombstoneGracePeriod's default (24 h) against the window: the bound PROTOCOL.md argues.
    long defaultGraceNanos = TimeUnit.HOURS.toNanos(24);
    assertTrue(IdempotentResends.RESEND_WINDOW_NANOS * 100 < defaultGraceNanos);
    // The builder's default operationTimeout (7 s): the first attempt and every resend, each
    // timing out, with the pauses between them, fit in the window.
    long timeout = TimeUnit.SECONDS.toNanos(7);
    long lastResendSent = 0;
    for (int i = 1; i <= IdempotentResends.MAX_RESENDS; i++) {
      lastResendSent += timeout + IdempotentResends.BACKOFF_NANOS * i;
    }
    assertTrue(lastResendSent < IdempotentResends.RESEND_WINDOW_NANOS, "" + lastResendSent);
  }

  @Test
  void aResendThatIsNotExecuted_leavesTheOutcomeUnknown_neverNotExecuted() throws Exception {
    answers.add(new ClientOutcome.Unknown("timeout"));
    for (int i = 0; i < IdempotentResends.MAX_RESENDS; i++) {
      answers.add(new ClientOutcome.NotExecuted("no leader"));
    }
    assertInstanceOf(ClientOutcome.Unknown.class, run(cas(new ClientOperation.Hint(TOKEN, false))));
    assertEquals(1 + IdempotentResends.MAX_RESENDS, sent.size(), "bounded");
  }

  @Test
  void superseded_endsTheResends() throws Exception {
    answers.add(new ClientOutcome.Unknown("timeout"));
    answers.add(new ClientOutcome.Unknown("superseded: the key moved on"));
    ClientOutcome.Unknown u =
        assertInstanceOf(
            ClientOutcome.Unknown.class, run(cas(new ClientOperation.Hint(TOKEN, false))));
    assertTrue(u.reason().startsWith("superseded"));
    assertEquals(2, sent.size());
  }

  @Test
  void firstAttemptNotExecuted_isDefinite_andUntokenedMutationsAreNeverResent() throws Exception {
    answers.add(new ClientOutcome.NotExecuted("no leader"));
    assertInstanceOf(
        ClientOutcome.NotExecuted.class, run(cas(new ClientOperation.Hint(TOKEN, false))));
    answers.add(new ClientOutcome.Unknown("timeout"));
    assertInstanceOf(ClientOutcome.Unknown.class, run(cas(null)));
    assertEquals(2, sent.size());
  }
}
