package io.frsm.bench.crsm;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * frsm's client API over the baseline: each command goes to the current leader of its key's shard.
 * A replica that does not lead answers at once and the command is retried at the new leader; a
 * command whose leader lost leadership after proposing it, or that got no answer within {@link
 * #TIMEOUT_SECONDS}, ends in {@link OutcomeUnknownException} (resolve it with {@code fence}).
 *
 * <p>Keys and values are copied on the way in. Thread-safe. Futures complete on a node's event loop
 * thread: keep callbacks short.
 */
final class CrsmClient implements FrsmClient {
  static final long TIMEOUT_SECONDS = 10;
  private static final int MAX_ATTEMPTS = 20;

  private final CrsmCluster cluster;

  CrsmClient(CrsmCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return run(new Command.Get(key.clone()))
        .thenApply(r -> ((Result.Value) expect(r, Result.Value.class)).value());
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return run(new Command.Create(key.clone(), value.clone()))
        .thenApply(
            r -> {
              if (r instanceof Result.Exists e) {
                throw new KeyExistsException(e.current());
              }
              return ((Result.Written) expect(r, Result.Written.class)).version();
            });
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    Objects.requireNonNull(expected, "expected");
    return run(new Command.Cas(key.clone(), expected, newValue.clone()))
        .thenApply(
            r -> {
              throwIfMismatch(r);
              return ((Result.Written) expect(r, Result.Written.class)).version();
            });
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    Objects.requireNonNull(expected, "expected");
    return run(new Command.Delete(key.clone(), expected))
        .thenApply(
            r -> {
              throwIfMismatch(r);
              expect(r, Result.Deleted.class);
              return null;
            });
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return run(new Command.Fence(key.clone()))
        .thenApply(r -> ((Result.Value) expect(r, Result.Value.class)).value());
  }

  @Override
  public void close() {
    // Holds nothing: the cluster owns the threads.
  }

  private CompletableFuture<Result> run(Command command) {
    int shard = CrsmCluster.shardOf(command.key());
    CompletableFuture<Result> result = new CompletableFuture<>();
    attempt(shard, command, 1, result);
    return result
        .orTimeout(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .exceptionallyCompose(
            error -> {
              Throwable e =
                  error instanceof java.util.concurrent.CompletionException
                          && error.getCause() != null
                      ? error.getCause()
                      : error;
              if (e instanceof TimeoutException) {
                return CompletableFuture.failedFuture(
                    command instanceof Command.Get
                        ? new NotExecutedException("no answer in " + TIMEOUT_SECONDS + " s", e)
                        : new OutcomeUnknownException("no answer in " + TIMEOUT_SECONDS + " s", e));
              }
              return CompletableFuture.failedFuture(e);
            });
  }

  private void attempt(int shard, Command command, int attempt, CompletableFuture<Result> out) {
    int leader = cluster.leaderOf(shard);
    if (leader < 0) {
      leader = shard % CrsmCluster.NODES; // no leader known: the natural one will re-elect
    }
    cluster
        .node(leader)
        .submit(shard, command)
        .whenComplete(
            (r, error) -> {
              if (error != null) {
                out.completeExceptionally(error);
              } else if (r instanceof Result.NotLeader && attempt < MAX_ATTEMPTS) {
                // Leadership moves within an election timeout; retry from a fresh thread so the
                // node's event loop never waits.
                CompletableFuture.delayedExecutor(
                        CrsmCluster.TICK_MILLIS * attempt, TimeUnit.MILLISECONDS)
                    .execute(() -> attempt(shard, command, attempt + 1, out));
              } else {
                out.complete(r);
              }
            });
  }

  private static void throwIfMismatch(Result r) {
    if (r instanceof Result.Mismatch m) {
      throw new CasMismatchException(m.expected(), m.current());
    }
  }

  private static Result expect(Result r, Class<? extends Result> type) {
    if (type.isInstance(r)) {
      return r;
    }
    if (r instanceof Result.NotLeader) {
      throw new NotExecutedException("no leader for the key's shard");
    }
    if (r instanceof Result.LeadershipLost) {
      throw new OutcomeUnknownException("the shard's leader lost leadership");
    }
    throw new FrsmException("unexpected answer " + r);
  }
}
