package io.frsm.lsm;

import io.frsm.lsm.commitlog.CommitLog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The engine's two ways to stop: {@link #close()} flushes what the memtables hold first (so the
 * next open replays nothing), {@link #kill()} abandons it as a crash would. Either way writers are
 * turned away first ({@link MemtableSwitch#close()}; writes still waiting for a flush fail, {@link
 * WriteStall#close()}), then the threads stop, then the commit log and the tables are closed —
 * once, whichever comes first.
 */
final class EngineShutdown {
  // The engine's logger: operators configure the engine's log by that name.
  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  private final MemtableSwitch memtables;
  private final WriteStall stall;
  private final EngineThreads threads;
  private final BackgroundScrub scrub;
  private final CommitLog commitLog;
  private final EngineState state;
  private final AtomicBoolean shutDown = new AtomicBoolean();

  EngineShutdown(
      MemtableSwitch memtables,
      WriteStall stall,
      EngineThreads threads,
      BackgroundScrub scrub,
      CommitLog commitLog,
      EngineState state) {
    this.memtables = memtables;
    this.stall = stall;
    this.threads = threads;
    this.scrub = scrub;
    this.commitLog = commitLog;
    this.state = state;
  }

  /** See {@link LsmEngine#close()}. */
  void close() {
    CompletableFuture<Void> lastFlush;
    try {
      lastFlush = memtables.switchMemtable(memtables.segregatedFlushes());
    } catch (RuntimeException e) {
      lastFlush = CompletableFuture.failedFuture(e);
    }
    if (!memtables.close()) {
      return;
    }
    stall.close();
    try {
      lastFlush.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "final flush did not finish; the commit log keeps the data",
          e);
    }
    stop(false);
  }

  /** See {@link LsmEngine#kill()}. */
  void kill() {
    memtables.close();
    stall.close();
    stop(true);
  }

  private void stop(boolean now) {
    if (!shutDown.compareAndSet(false, true)) {
      return;
    }
    threads.stop(now, scrub::stop);
    commitLog.close();
    state.close();
  }
}
