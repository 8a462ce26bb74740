package io.frsm.client.transport;

import java.util.HashMap;
import java.util.Map;

/**
 * Event loops the clients of one process share, one set per thread count, made for the first client
 * that asks and closed when the last one gives its lease back.
 *
 * <p>Why: a client's network thread sleeps in epoll between answers, and a caller's request wakes
 * it (an eventfd write, a context switch) before it can be written. With many clients in a process
 * each on its own loop, nearly every request pays that wake-up; on one shared loop, the requests of
 * every client that arrive while it is awake are written in the same turn, and the process runs one
 * network thread instead of one per client (BENCHMARKS.md, issue 26).
 *
 * <p>Thread-safe. A lease must be closed exactly once; its loops stay usable until then.
 */
public final class SharedEventLoops {
  private static final Map<Integer, Shared> BY_THREADS = new HashMap<>();

  private SharedEventLoops() {}

  /** A lease on event loops: shared ones, or a client's own. */
  public interface Lease extends AutoCloseable {
    TransportEventLoops loops();

    /** Gives the loops back: a client's own are closed, shared ones when no lease is left. */
    @Override
    void close();
  }

  /** Leases the process's shared loops of {@code threads} threads, creating them if none are. */
  public static Lease acquire(int threads) {
    synchronized (BY_THREADS) {
      Shared shared = BY_THREADS.get(threads);
      if (shared == null) {
        shared = new Shared(threads, TransportEventLoops.create(threads, true));
        BY_THREADS.put(threads, shared);
      }
      shared.leases++;
      return new SharedLease(shared);
    }
  }

  /** Loops of the caller's own, closed with the lease. */
  public static Lease own(int threads) {
    TransportEventLoops loops = TransportEventLoops.create(threads, true);
    return new Lease() {
      @Override
      public TransportEventLoops loops() {
        return loops;
      }

      @Override
      public void close() {
        loops.close();
      }
    };
  }

  /** How many leases the shared loops of {@code threads} threads have (0: none exist). */
  public static int leases(int threads) {
    synchronized (BY_THREADS) {
      Shared shared = BY_THREADS.get(threads);
      return shared == null ? 0 : shared.leases;
    }
  }

  private static final class Shared {
    final int threads;
    final TransportEventLoops loops;
    int leases; // guarded by BY_THREADS

    Shared(int threads, TransportEventLoops loops) {
      this.threads = threads;
      this.loops = loops;
    }
  }

  private static final class SharedLease implements Lease {
    private final Shared shared;
    private boolean closed; // guarded by BY_THREADS

    SharedLease(Shared shared) {
      this.shared = shared;
    }

    @Override
    public TransportEventLoops loops() {
      return shared.loops;
    }

    @Override
    public void close() {
      TransportEventLoops last = null;
      synchronized (BY_THREADS) {
        if (closed) {
          throw new IllegalStateException("lease closed twice");
        }
        closed = true;
        if (--shared.leases == 0) {
          BY_THREADS.remove(shared.threads);
          last = shared.loops;
        }
      }
      if (last != null) {
        // Outside the lock: a client acquiring meanwhile makes fresh loops, not these.
        last.close();
      }
    }
  }
}
