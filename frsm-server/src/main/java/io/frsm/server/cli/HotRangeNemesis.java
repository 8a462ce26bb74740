package io.frsm.server.cli;

import io.frsm.cell.Token;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.ring.Ring;
import io.frsm.server.workload.WorkloadRunner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo's failure: a third of the way into the run, the node that leads the hottest key's range
 * at that moment (whoever holds the range's term, not the natural leader computed at start) is
 * killed as kill -9 would (no drain, no flush); the node that takes the range over is reported, and
 * at two thirds, or once the range moved if that takes longer (a loaded machine), the killed node
 * restarts on its directories: restarting before the fail-over would show none.
 */
final class HotRangeNemesis implements Runnable {
  /** How long to wait for the hot range to have a leader before giving up on the kill. */
  private static final long LEADER_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * How long to wait for another node to take the range over: far beyond the ZooKeeper session
   * timeout of the local cluster (a killed node's range moves once its session ends).
   */
  private static final long TAKEOVER_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final LocalCluster cluster;
  private final long startNanos;
  private final long runNanos;
  private final ProgressLine progress;

  HotRangeNemesis(LocalCluster cluster, long startNanos, long runNanos, ProgressLine progress) {
    this.cluster = cluster;
    this.startNanos = startNanos;
    this.runNanos = runNanos;
    this.progress = progress;
  }

  /** The ring range of the workload's hottest key (Zipf rank 0 is key index 0). */
  static int hotRange(LocalCluster cluster) {
    Ring ring = cluster.nodes().get(0).ring();
    return ring.rangeIndexOf(Token.of(WorkloadRunner.key(0)));
  }

  @Override
  public void run() {
    try {
      int range = hotRange(cluster);
      parkUntil(startNanos + runNanos / 3);
      int leader = awaitLeader(range, -1, System.nanoTime() + LEADER_WAIT_NANOS);
      if (leader < 0) {
        progress.event(">>> no node leads range " + range + " (the hottest key's): nothing killed");
        return;
      }
      progress.event(
          ">>> killing node "
              + leader
              + ", which leads range "
              + range
              + " (the hottest key's) now: no drain, no flush, as kill -9");
      long killedAt = System.nanoTime();
      cluster.kill(leader);
      int successor = awaitLeader(range, leader, killedAt + TAKEOVER_WAIT_NANOS);
      if (successor < 0) {
        progress.event(
            ">>> no node took range "
                + range
                + " over within "
                + TimeUnit.NANOSECONDS.toSeconds(TAKEOVER_WAIT_NANOS)
                + " s");
      } else {
        progress.event(
            ">>> node "
                + successor
                + " took range "
                + range
                + " over "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt)
                + " ms after the kill (its writes start once the old lease expired)");
      }
      parkUntil(startNanos + 2 * runNanos / 3);
      progress.event(">>> restarting node " + leader);
      cluster.restart(leader);
      progress.event(">>> node " + leader + " is back");
    } catch (Exception e) {
      progress.event(">>> nemesis failed: " + e);
    }
  }

  /**
   * The running node other than {@code excluded} that holds {@code range}'s term, polled until
   * {@code deadlineNanos}; -1 if none did by then.
   */
  private int awaitLeader(int range, int excluded, long deadlineNanos) {
    while (true) {
      for (FrsmNode n : cluster.nodes()) {
        if (n.nodeId() != excluded && n.leadsRange(range)) {
          return n.nodeId();
        }
      }
      if (System.nanoTime() - deadlineNanos > 0) {
        return -1;
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }

  /** The demo's timeline, not synchronization: waits until {@code deadlineNanos}. */
  private static void parkUntil(long deadlineNanos) throws InterruptedException {
    for (long left; (left = deadlineNanos - System.nanoTime()) > 0; ) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        throw new InterruptedException("demo stopped");
      }
    }
  }
}
