package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Redirect following against scripted nodes: each address answers as the test says. */
class RedirectFollowerTest {
  private static final OperationRequest REQUEST =
      new OperationRequest(
          new ClientOperation.Get(KeyBytes.of("k".getBytes(StandardCharsets.UTF_8))), 1_000_000L);
  private static final InetSocketAddress A = node(1);
  private static final InetSocketAddress B = node(2);
  private static final InetSocketAddress C = node(3);
  private static final ClientOutcome WRITTEN = new ClientOutcome.Written(new Version(1, 1));

  private final Map<InetSocketAddress, OperationResponse> answers = new HashMap<>();
  private final Map<InetSocketAddress, Throwable> failures = new HashMap<>();
  private final Map<InetSocketAddress, RuntimeException> unreachable = new HashMap<>();
  private final List<InetSocketAddress> called = new ArrayList<>();
  private final RedirectFollower follower = new RedirectFollower(this::call);

  private CompletableFuture<OperationResponse> call(
      InetSocketAddress target, OperationRequest request) {
    assertSame(REQUEST, request, "every hop sends the caller's request unchanged");
    RuntimeException refused = unreachable.get(target);
    if (refused != null) {
      throw refused;
    }
    called.add(target);
    Throwable failure = failures.get(target);
    return failure != null
        ? CompletableFuture.failedFuture(failure)
        : CompletableFuture.completedFuture(answers.get(target));
  }

  private static InetSocketAddress node(int n) {
    return new InetSocketAddress("127.0.0.1", 7000 + n); // a literal: no name lookup
  }

  private static OperationResponse.Redirect redirectTo(InetSocketAddress a) {
    return new OperationResponse.Redirect(a.getHostString(), a.getPort());
  }

  /** A follower whose pauses are recorded in {@code pauses} and then taken at once. */
  private RedirectFollower pausingFollower(List<Long> pauses) {
    return new RedirectFollower(
        this::call,
        (nanos, then) -> {
          pauses.add(nanos);
          then.run();
        });
  }

  private RedirectFollower.Reply send(InetSocketAddress target, int redirects) {
    return follower.send(REQUEST, target, redirects).join();
  }

  @Test
  void completed_isAnswered_withTheWholeBudgetLeft() {
    answers.put(A, new OperationResponse.Completed(WRITTEN));

    assertEquals(new RedirectFollower.Answered(WRITTEN, 3), send(A, 3));
    assertEquals(List.of(A), called);
  }

  @Test
  void redirect_isFollowed_andSpendsOneOfTheBudget() {
    answers.put(A, redirectTo(B));
    answers.put(B, redirectTo(C));
    answers.put(C, new OperationResponse.Completed(WRITTEN));

    assertEquals(new RedirectFollower.Answered(WRITTEN, 1), send(A, 3));
    assertEquals(List.of(A, B, C), called);
  }

  @Test
  void tooManyRedirects_endsWithTheLastRedirect_unsent() {
    answers.put(A, redirectTo(B));
    answers.put(B, redirectTo(A));

    RedirectFollower.Reply reply = send(A, 1);

    assertEquals(new RedirectFollower.TooManyRedirects(redirectTo(A)), reply);
    assertEquals(2, called.size(), "the budget of one redirect allows two hops");
  }

  /**
   * A range changing hands: the old holder points at its successor, which points back until
   * ZooKeeper names it. The first redirect goes at once, every later one after a pause that doubles
   * up to the cap, and the budget still ends the loop.
   */
  @Test
  void aRedirectLoop_isFollowedAfterGrowingPauses_theFirstRedirectAtOnce() {
    List<Long> pauses = new ArrayList<>();
    RedirectFollower pausing = pausingFollower(pauses);
    answers.put(A, redirectTo(B));
    answers.put(B, redirectTo(A));

    RedirectFollower.Reply reply = pausing.send(REQUEST, A, 10).join();

    // Hops A, B, A, ... A: the eleventh hop's redirect (to B) is the one not followed.
    assertEquals(new RedirectFollower.TooManyRedirects(redirectTo(B)), reply);
    assertEquals(11, called.size());
    long ms = TimeUnit.MILLISECONDS.toNanos(1);
    assertEquals(
        List.of(
            10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 500 * ms, 500 * ms, 500 * ms),
        pauses,
        "no pause before the first redirect; then doubling from 10 ms, capped at 500 ms");
  }

  @Test
  void aStaleView_costsOneRedirect_withoutAPause() {
    List<Long> pauses = new ArrayList<>();
    RedirectFollower pausing = pausingFollower(pauses);
    answers.put(A, redirectTo(B));
    answers.put(B, new OperationResponse.Completed(WRITTEN));

    assertEquals(new RedirectFollower.Answered(WRITTEN, 9), pausing.send(REQUEST, A, 10).join());
    assertEquals(List.of(), pauses);
  }

  @Test
  void aPauseThatCannotSchedule_failsTheReply_neverLeavesItOpen() {
    IllegalStateException broken = new IllegalStateException("scheduler broken");
    RedirectFollower pausing =
        new RedirectFollower(
            this::call,
            (nanos, then) -> {
              throw broken;
            });
    answers.put(A, redirectTo(B));
    answers.put(B, redirectTo(C));

    CompletableFuture<RedirectFollower.Reply> reply = pausing.send(REQUEST, A, 10);

    assertTrue(reply.isCompletedExceptionally(), "the reply ended: " + reply);
  }

  @Test
  void invalid_isRefusedByTheNodeThatSaidSo_withoutFollowingFurther() {
    answers.put(A, redirectTo(B));
    answers.put(B, new OperationResponse.Invalid("empty key"));

    assertEquals(new RedirectFollower.Refused(B, "empty key"), send(A, 3));
  }

  @Test
  void callFailure_isReported_withTheBudgetLeftAtThatHop() {
    OutcomeUnknownException lost = new OutcomeUnknownException("connection dropped");
    answers.put(A, redirectTo(B));
    failures.put(B, lost);

    RedirectFollower.Reply reply = send(A, 3);

    RedirectFollower.CallFailed failed = assertInstanceOf(RedirectFollower.CallFailed.class, reply);
    assertSame(lost, failed.cause(), "the transport's exception, not a wrapper");
    assertEquals(2, failed.redirectsLeft());
  }

  @Test
  void notExecutedFailure_isReportedAsIs() {
    NotExecutedException neverSent = new NotExecutedException("backlog full");
    failures.put(A, neverSent);

    RedirectFollower.CallFailed failed =
        assertInstanceOf(RedirectFollower.CallFailed.class, send(A, 3));
    assertSame(neverSent, failed.cause());
    assertEquals(3, failed.redirectsLeft());
  }

  @Test
  void unreachableTarget_isReported_nothingSent() {
    IllegalStateException closed = new IllegalStateException("event loops closed");
    answers.put(A, redirectTo(B));
    unreachable.put(B, closed);

    assertEquals(new RedirectFollower.Unreachable(B, closed), send(A, 3));
    assertEquals(List.of(A), called);
  }

  @Test
  void aHopThatBreaksWhileHandlingTheAnswer_failsTheReply_neverLeavesItOpen() {
    // A's call completes with no response at all (a broken hop): handling it throws. The reply
    // must end exceptionally with that, not wait forever.
    CompletableFuture<RedirectFollower.Reply> reply = follower.send(REQUEST, A, 3);
    assertTrue(reply.isDone(), "the reply was left open");
    assertTrue(reply.isCompletedExceptionally());
    assertEquals(List.of(A), called);
  }
}
