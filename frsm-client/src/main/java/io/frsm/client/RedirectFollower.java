package io.frsm.client;

import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Sends one operation to a node over the client protocol and follows the node's redirects to the
 * key's leader, a bounded number of times. The seed client ({@link SeedClient}) and a node
 * forwarding an embedded client's operation both send this way; how the call ended is returned as a
 * {@link Reply}, and each caller maps it by its own rules (try the next node, answer "not
 * executed", raise an exception).
 *
 * <p>The redirect budget is passed in and what is left of it comes back with the reply, so that a
 * caller that moves on to another node after a definite "not executed" spends one budget over all
 * the nodes it tries.
 *
 * <p>Given a {@link Pause}, the first redirect of a call is followed at once (a stale view: the
 * common case) and every later one after a pause that doubles from {@link #FIRST_PAUSE_NANOS} up to
 * {@link #MAX_PAUSE_NANOS}: a chain that goes on redirecting is a range changing hands — the node
 * that gave it up points at its successor, which ZooKeeper does not name yet and which points back
 * — and following it at full speed spends the whole budget in a few milliseconds, failing an
 * operation that a moment's wait would have served.
 *
 * <p>Thread-safe and never blocks: replies complete on the thread that completes the call (a
 * connection's event loop), or the one the pause runs its hop on.
 */
public final class RedirectFollower {

  /** One hop: sends {@code request} to the node at {@code target}. */
  @FunctionalInterface
  public interface Hop {
    /**
     * Completes with the node's response, or exceptionally as {@link
     * io.frsm.transport.ClientProtocolClient#call} says.
     *
     * @throws RuntimeException if no connection to {@code target} can be had (nothing was sent)
     */
    CompletableFuture<OperationResponse> call(InetSocketAddress target, OperationRequest request);
  }

  /** How a call ended. */
  public sealed interface Reply {}

  /** A node ran the operation to {@code outcome} (which may be "not executed"). */
  public record Answered(ClientOutcome outcome, int redirectsLeft) implements Reply {}

  /** The node at {@code node} refused the request as invalid before doing anything. */
  public record Refused(InetSocketAddress node, String reason) implements Reply {}

  /** The budget ran out: {@code last} is the redirect not followed. Nothing was executed. */
  public record TooManyRedirects(OperationResponse.Redirect last) implements Reply {}

  /**
   * The call got no response; {@code cause} says what the caller may conclude (never sent: not
   * executed; sent: a mutation's outcome is unknown).
   */
  public record CallFailed(Throwable cause, int redirectsLeft) implements Reply {}

  /** No connection to {@code target} could be had: the hop was not sent. */
  public record Unreachable(InetSocketAddress target, RuntimeException cause) implements Reply {}

  /**
   * Runs a hop later: {@code then} runs once, on any thread, no sooner than {@code nanos} from now.
   */
  @FunctionalInterface
  public interface Pause {
    void after(long nanos, Runnable then);
  }

  /** The pause before the second redirect of a call; each later one doubles it. */
  public static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** The longest pause before one redirect. */
  public static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final Hop hop;
  private final Pause pause;

  /** A follower that never pauses (every redirect followed at once). */
  public RedirectFollower(Hop hop) {
    this(hop, null);
  }

  /** A follower that pauses before every redirect of a call but its first (class comment). */
  public RedirectFollower(Hop hop, Pause pause) {
    this.hop = hop;
    this.pause = pause;
  }

  /**
   * The pause before following a redirect when {@code followed} were already followed: 0 for the
   * first, then doubling from {@link #FIRST_PAUSE_NANOS} to {@link #MAX_PAUSE_NANOS}. Also the
   * schedule of a node's reroutes after a hand-over (the same situation: a range changing hands).
   */
  public static long pauseBefore(int followed) {
    if (followed == 0) {
      return 0;
    }
    int doublings = Math.min(followed - 1, 30);
    return Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << doublings);
  }

  /** Sends {@code request} to {@code target}, following at most {@code redirectsLeft} redirects. */
  public CompletableFuture<Reply> send(
      OperationRequest request, InetSocketAddress target, int redirectsLeft) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    follow(request, target, redirectsLeft, 0, reply);
    return reply;
  }

  /**
   * One hop; completes {@code reply} when the call ends, or hops on after a redirect. One future
   * for the whole call instead of a chain of stages per hop: this runs for every operation.
   */
  private void follow(
      OperationRequest request,
      InetSocketAddress target,
      int redirectsLeft,
      int followed,
      CompletableFuture<Reply> reply) {
    CompletableFuture<OperationResponse> call;
    try {
      call = hop.call(target, request);
    } catch (RuntimeException e) {
      reply.complete(new Unreachable(target, e));
      return;
    }
    call.whenComplete(
        (response, error) -> {
          try {
            answered(request, target, redirectsLeft, followed, response, error, reply);
          } catch (RuntimeException | Error e) {
            // Nothing may leave the reply open: whenComplete would swallow this.
            reply.completeExceptionally(e);
          }
        });
  }

  private void answered(
      OperationRequest request,
      InetSocketAddress target,
      int redirectsLeft,
      int followed,
      OperationResponse response,
      Throwable error,
      CompletableFuture<Reply> reply) {
    if (error != null) {
      reply.complete(new CallFailed(unwrap(error), redirectsLeft));
    } else if (response instanceof OperationResponse.Completed c) {
      reply.complete(new Answered(c.outcome(), redirectsLeft));
    } else if (response instanceof OperationResponse.Invalid invalid) {
      reply.complete(new Refused(target, invalid.reason()));
    } else {
      OperationResponse.Redirect redirect = (OperationResponse.Redirect) response;
      if (redirectsLeft == 0) {
        reply.complete(new TooManyRedirects(redirect));
      } else {
        InetSocketAddress next =
            new InetSocketAddress(redirect.leaderHost(), redirect.leaderPort());
        long wait = pause == null ? 0 : pauseBefore(followed);
        if (wait == 0) {
          follow(request, next, redirectsLeft - 1, followed + 1, reply);
        } else {
          pause.after(
              wait, () -> followLater(request, next, redirectsLeft - 1, followed + 1, reply));
        }
      }
    }
  }

  /** {@link #follow} from a pause's thread: nothing it throws may leave the reply open. */
  private void followLater(
      OperationRequest request,
      InetSocketAddress target,
      int redirectsLeft,
      int followed,
      CompletableFuture<Reply> reply) {
    try {
      follow(request, target, redirectsLeft, followed, reply);
    } catch (RuntimeException | Error e) {
      reply.completeExceptionally(e);
    }
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }
}
