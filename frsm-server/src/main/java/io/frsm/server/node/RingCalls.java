package io.frsm.server.node;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * One core shard's answers to ring inputs (docs/PROTOCOL.md "Membership changes"): the futures
 * waiting for {@code RingInstalled} of a version and for {@code RangeSettled} of a range, completed
 * by the driver's loop as the core emits them.
 *
 * <p>A placement the core already has (or an older one) is answered by no effect, so an
 * installation wait completes as soon as the shard's installed version reaches it, whenever that
 * was. Thread-safety: every method may be called from any thread (one lock; nothing slow under it).
 */
final class RingCalls {
  private record Waiter(long version, CompletableFuture<Void> done) {}

  private record SettleKey(int range, long version) {}

  private long installed;
  private final List<Waiter> installs = new ArrayList<>();

  /** Per (range, version): the settles asked and not yet answered. */
  private final Map<SettleKey, List<CompletableFuture<Boolean>>> settles = new HashMap<>();

  private volatile LongConsumer behind = v -> {};
  private boolean closed;

  RingCalls(long builtWith) {
    this.installed = builtWith;
  }

  /** The newest ring version the shard installed (or was built with). */
  synchronized long installed() {
    return installed;
  }

  /** Completes once the shard installed {@code version} or a newer one. */
  synchronized CompletableFuture<Void> awaitInstalled(long version) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (installed >= version) {
      done.complete(null);
    } else if (closed) {
      done.completeExceptionally(new IllegalStateException("the core stopped"));
    } else {
      installs.add(new Waiter(version, done));
    }
    return done;
  }

  /** The core emitted {@code RingInstalled(version)}. */
  void installed(long version) {
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    synchronized (this) {
      if (version <= installed) {
        throw new IllegalStateException(
            "the core installed ring version " + version + " after " + installed);
      }
      installed = version;
      for (Iterator<Waiter> i = installs.iterator(); i.hasNext(); ) {
        Waiter w = i.next();
        if (w.version() <= version) {
          ready.add(w.done());
          i.remove();
        }
      }
    }
    ready.forEach(f -> f.complete(null)); // outside the lock: callers' continuations run here
  }

  /** The core refused a placement (same version, other contents): fail the waits for it. */
  void refused(long version, IllegalArgumentException why) {
    List<CompletableFuture<Void>> failed = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Waiter> i = installs.iterator(); i.hasNext(); ) {
        Waiter w = i.next();
        if (w.version() == version) {
          failed.add(w.done());
          i.remove();
        }
      }
    }
    failed.forEach(f -> f.completeExceptionally(why));
  }

  /** Registers a settle of {@code range} at {@code version}, answered by {@link #settled}. */
  synchronized CompletableFuture<Boolean> awaitSettled(int range, long version) {
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    if (closed) {
      done.complete(false);
    } else {
      settles.computeIfAbsent(new SettleKey(range, version), k -> new ArrayList<>()).add(done);
    }
    return done;
  }

  /** The core emitted {@code RangeSettled}: completes every settle of that range and version. */
  void settled(int range, long version, boolean settled) {
    List<CompletableFuture<Boolean>> answered;
    synchronized (this) {
      answered = settles.remove(new SettleKey(range, version));
    }
    if (answered != null) {
      answered.forEach(f -> f.complete(settled));
    }
  }

  /** Where {@code RingBehind} goes: the node's ring follower reads the history again. */
  void onBehind(LongConsumer listener) {
    behind = listener;
  }

  void behind(long version) {
    behind.accept(version);
  }

  /** The core stopped: nothing waiting will be answered. */
  void close() {
    List<CompletableFuture<Void>> failedInstalls = new ArrayList<>();
    List<CompletableFuture<Boolean>> abandoned = new ArrayList<>();
    synchronized (this) {
      closed = true;
      installs.forEach(w -> failedInstalls.add(w.done()));
      installs.clear();
      settles.values().forEach(abandoned::addAll);
      settles.clear();
    }
    IllegalStateException stopped = new IllegalStateException("the core stopped");
    failedInstalls.forEach(f -> f.completeExceptionally(stopped));
    abandoned.forEach(f -> f.complete(false));
  }
}
