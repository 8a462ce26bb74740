package io.frsm.server.zk;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * The one thread {@link RangeLeadership} handles its latch and membership events on, so that its
 * state needs no lock and no ZooKeeper call runs on Curator's event thread. A failed event is
 * logged and the next one runs; once closed, queued events do nothing.
 */
final class LeadershipEvents {
  private static final System.Logger LOG = System.getLogger(RangeLeadership.class.getName());

  private final int self;
  private final ExecutorService events;

  private boolean closed; // event thread only

  LeadershipEvents(int self) {
    this.self = self;
    this.events = Executors.newSingleThreadExecutor(daemon("frsm-node-" + self + "-leadership"));
  }

  static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Runs {@code task} on the event thread, unless closed by then. Any thread. */
  void post(Runnable task) {
    try {
      events.execute(
          () -> {
            if (closed) {
              return;
            }
            try {
              task.run();
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.WARNING, "node " + self + ": leadership event failed", e);
            }
          });
    } catch (RejectedExecutionException stopping) {
      // Closed: nothing to lead any more.
    }
  }

  /** On the event thread: the events queued after this one do nothing. */
  void closeFromWithin() {
    closed = true;
  }

  void shutdownNow() {
    events.shutdownNow();
  }
}
