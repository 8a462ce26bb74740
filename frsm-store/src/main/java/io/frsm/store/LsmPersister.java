package io.frsm.store;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.lsm.LsmEngine;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Carries out the core's {@link Effect.Persist} effects on the real LSM and feeds {@link
 * Input.PersistDone} back (docs/STORAGE-ADAPTER.md).
 *
 * <p>Order on success: {@link LsmEngine#write} completes (commit-log stripe synced, delta merged
 * into the memtable), then the {@link PersistListener} (the clock cache) learns the delta, then
 * {@code done} receives the {@code PersistDone}. So by the time the core hears the persist is done,
 * every read — cached or not — sees it.
 *
 * <p>On failure the write may or may not survive a restart, and the core gets no {@code
 * PersistDone} for it (the key's acceptor lane stays blocked): the listener is told (the cache
 * drops the key), then {@code fatal} receives the error. The node must then stop serving and
 * restart with a new boot, as after a crash — the one answer that keeps every reply describing
 * durable state.
 *
 * <p>A persist that is not {@link Effect.Persist#logged() logged} (a commit's hint) is merged into
 * the memtable on the calling thread, and {@code done} runs there before {@code execute} returns.
 *
 * <p>Thread-safe. {@code done} and {@code fatal} run on commit-log threads (or, for a hint, on the
 * caller's): they must only hand the input to the node's event loop (a queue), never step the core
 * there.
 */
public final class LsmPersister {
  private final LsmEngine engine;
  private final PersistListener listener;
  private final Consumer<Input.PersistDone> done;
  private final Consumer<Throwable> fatal;

  public LsmPersister(
      LsmEngine engine,
      PersistListener listener,
      Consumer<Input.PersistDone> done,
      Consumer<Throwable> fatal) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.done = Objects.requireNonNull(done, "done");
    this.fatal = Objects.requireNonNull(fatal, "fatal");
  }

  /**
   * Writes {@code persist}'s delta. The returned future completes after {@code done} (or {@code
   * fatal}) was called; exceptionally with the write's error.
   */
  public CompletableFuture<Void> execute(Effect.Persist persist) {
    CompletableFuture<Void> written;
    try {
      written =
          persist.logged()
              ? engine.write(persist.delta())
              : engine.writeUnlogged(persist.delta()); // already complete: no hand-off
    } catch (RuntimeException e) { // oversized cell, closed engine: nothing was written
      written = CompletableFuture.failedFuture(e);
    }
    return written.whenComplete(
        (ok, error) -> {
          if (error == null) {
            listener.persisted(persist.delta());
            done.accept(new Input.PersistDone(persist.persistId()));
          } else {
            listener.persistFailed(persist.delta());
            fatal.accept(error);
          }
        });
  }
}
