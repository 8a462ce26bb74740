package io.frsm.store;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.WriteCallback;
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
 * the memtable on the calling thread, and {@code done} runs there before {@code persist} returns.
 *
 * <p>Thread-safe. {@code done} and {@code fatal} run on commit-log threads (or, for a hint, on the
 * caller's): they must only hand the input to the node's event loop (a queue), never step the core
 * there.
 */
public final class LsmPersister implements WriteCallback<Effect.Persist> {
  private static final System.Logger LOG = System.getLogger(LsmPersister.class.getName());

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
   * Writes {@code persist}'s delta; {@code done} (or {@code fatal}) is called when it ends. The
   * node's path: this persister is the write's callback and the persist its attachment, so a
   * persist costs no future and no lambda. What {@code done}, {@code fatal} or the listener throw
   * is logged.
   */
  public void persist(Effect.Persist persist) {
    try {
      if (persist.logged()) {
        engine.write(persist.delta(), persist, this);
      } else {
        engine.writeUnlogged(persist.delta(), persist, this); // done runs before this returns
      }
    } catch (RuntimeException e) { // oversized cell, closed engine: nothing was written
      try {
        written(persist, e);
      } catch (RuntimeException | Error t) {
        LOG.log(System.Logger.Level.ERROR, "a persist's failure handler failed", t);
      }
    }
  }

  /**
   * As {@link #persist}; the returned future completes after {@code done} (or {@code fatal}) was
   * called: exceptionally with the write's error, or with what {@code done} or the listener threw.
   */
  public CompletableFuture<Void> execute(Effect.Persist persist) {
    CompletableFuture<Void> finished = new CompletableFuture<>();
    WriteCallback<Effect.Persist> then =
        (p, error) -> {
          try {
            written(p, error);
          } catch (Throwable t) {
            finished.completeExceptionally(error != null ? error : t);
            return;
          }
          if (error == null) {
            finished.complete(null);
          } else {
            finished.completeExceptionally(error);
          }
        };
    try {
      if (persist.logged()) {
        engine.write(persist.delta(), persist, then);
      } else {
        engine.writeUnlogged(persist.delta(), persist, then);
      }
    } catch (RuntimeException e) {
      then.written(persist, e);
    }
    return finished;
  }

  /** The write of {@code persist} ended (a commit-log thread, or the caller's for a hint). */
  @Override
  public void written(Effect.Persist persist, Throwable error) {
    if (error == null) {
      listener.persisted(persist.delta());
      done.accept(new Input.PersistDone(persist.persistId()));
    } else {
      listener.persistFailed(persist.delta());
      fatal.accept(error);
    }
  }
}
