package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.ReadMode;
import io.frsm.api.Version;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Per-call options through derived clients ({@code withReadMode}, {@code withTimeout}): each mode
 * becomes the operation the nodes offer for it, the timeout reaches the runner with the call, and a
 * derived client shares its root's session ordering, so a key's calls keep their issue order across
 * both.
 */
class CallOptionsTest {
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final Version V = new Version(1, 0);

  /** Records what it was asked to run; the test completes each call. */
  private static final class Recording extends SessionClient {
    record Ran(ClientOperation operation, long timeoutNanos, CompletableFuture<ClientOutcome> f) {}

    final List<Ran> ran = new CopyOnWriteArrayList<>();
    final boolean timeouts;

    Recording(boolean timeouts) {
      super(RequestLimits.DEFAULTS, 1_000_000L, new SessionCounters());
      this.timeouts = timeouts;
    }

    @Override
    protected CompletableFuture<ClientOutcome> runOperation(ClientOperation op, long tau) {
      return runOperation(op, tau, 0);
    }

    @Override
    protected CompletableFuture<ClientOutcome> runOperation(
        ClientOperation op, long tau, long timeoutNanos) {
      CompletableFuture<ClientOutcome> f = new CompletableFuture<>();
      ran.add(new Ran(op, timeoutNanos, f));
      return f;
    }

    @Override
    protected boolean supportsTimeout() {
      return timeouts;
    }

    @Override
    protected long invocationMicros() {
      return 0;
    }

    @Override
    public void close() {
      closeSessions();
    }

    void answerLast(ClientOutcome outcome) {
      ran.get(ran.size() - 1).f().complete(outcome);
    }
  }

  private static ClientOutcome read() {
    return new ClientOutcome.ReadResult(Optional.empty());
  }

  @Test
  void eachReadMode_runsTheOperationTheNodesOfferForIt() {
    try (Recording root = new Recording(true)) {
      CompletableFuture<?> plain = root.getAsync(KEY);
      assertEquals(
          new ClientOperation.Get(root.ran.get(0).operation().key(), false),
          root.ran.get(0).operation());
      root.answerLast(read());
      plain.join();

      CompletableFuture<?> quorum = root.withReadMode(ReadMode.QUORUM).getAsync(KEY);
      ClientOperation.Get get =
          assertInstanceOf(ClientOperation.Get.class, root.ran.get(1).operation());
      assertTrue(get.quorum(), "QUORUM asks the node for a quorum read");
      root.answerLast(read());
      quorum.join();

      CompletableFuture<?> fenced = root.withReadMode(ReadMode.FENCED).getAsync(KEY);
      assertInstanceOf(ClientOperation.Fence.class, root.ran.get(2).operation(), "FENCED fences");
      root.answerLast(read());
      fenced.join();

      CompletableFuture<?> leader =
          root.withReadMode(ReadMode.FENCED)
              .withReadMode(ReadMode.LEADER_WHEN_AVAILABLE)
              .getAsync(KEY);
      assertFalse(
          assertInstanceOf(ClientOperation.Get.class, root.ran.get(3).operation()).quorum());
      root.answerLast(read());
      leader.join();
    }
  }

  @Test
  void aTimeout_reachesTheRunnerWithItsCall_andTheRootKeepsTheDefault() {
    try (Recording root = new Recording(true)) {
      FrsmClient quick = root.withTimeout(Duration.ofMillis(250));
      CompletableFuture<Version> cas = quick.casAsync(KEY, V, new byte[] {1});
      assertEquals(250_000_000L, root.ran.get(0).timeoutNanos());
      assertInstanceOf(ClientOperation.Cas.class, root.ran.get(0).operation());
      root.answerLast(new ClientOutcome.Written(V.next()));
      assertEquals(V.next(), cas.join());

      CompletableFuture<?> get = root.getAsync(KEY);
      assertEquals(0, root.ran.get(1).timeoutNanos(), "the root's calls: the client's default");
      root.answerLast(read());
      get.join();

      FrsmClient both = quick.withReadMode(ReadMode.QUORUM);
      CompletableFuture<?> q = both.getAsync(KEY);
      assertEquals(250_000_000L, root.ran.get(2).timeoutNanos(), "options combine");
      assertTrue(((ClientOperation.Get) root.ran.get(2).operation()).quorum());
      root.answerLast(read());
      q.join();
      assertThrows(IllegalArgumentException.class, () -> root.withTimeout(Duration.ZERO));
    }
  }

  @Test
  void aDerivedClient_sharesTheRootsSessionOrdering_andClosingItClosesNothing() {
    try (Recording root = new Recording(true)) {
      CompletableFuture<Version> cas = root.casAsync(KEY, V, new byte[] {1});
      FrsmClient quorum = root.withReadMode(ReadMode.QUORUM);
      CompletableFuture<?> get = quorum.getAsync(KEY);
      assertEquals(1, root.ran.size(), "the read waits behind the root's mutation of the key");
      root.answerLast(new ClientOutcome.Written(V.next()));
      cas.join();
      awaitRan(root, 2); // the read starts once the mutation ended
      root.answerLast(read());
      get.join();

      quorum.close();
      CompletableFuture<?> after = root.getAsync(KEY);
      assertEquals(3, root.ran.size(), "the root still runs calls");
      root.answerLast(read());
      after.join();
    }
  }

  private static void awaitRan(Recording root, int calls) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (root.ran.size() < calls) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("only " + root.ran.size() + " calls ran, waited for " + calls);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }

  @Test
  void aClientWithoutPerCallTimeouts_refusesOne_butOffersReadModes() {
    try (Recording embeddedLike = new Recording(false)) {
      assertThrows(
          UnsupportedOperationException.class,
          () -> embeddedLike.withTimeout(Duration.ofSeconds(1)));
      embeddedLike.withReadMode(ReadMode.QUORUM); // fine
    }
  }
}
