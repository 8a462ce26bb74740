package io.frsm.server.zk;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * Keeps the leases of the ranges this node holds (DESIGN.md "Lease invariant" rule 2): renews each
 * every {@code L/4} with a {@code multi(check)} and reports the monotonic send time of every
 * successful renewal, from which the consensus core computes {@code leaseEnd = sent + L·(1−ρ)}. A
 * failed check (a successor bumped the generation), a renewal error, or a SUSPENDED or LOST
 * connection ends the leases at once: {@link Listener#lost} is called and renewal stops; holding
 * the range again needs a new term.
 */
public final class LeaseKeeper implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

  /** Called from the keeper's scheduler thread or Curator's event thread. */
  public interface Listener {
    void renewed(TermGrant grant, long sentNanos);

    void lost(String rangeId, String reason);
  }

  private final CuratorFramework zk;
  private final RangeTermStore store;
  private final Duration lease;
  private final ScheduledExecutorService scheduler;
  private final Listener listener;
  private final Map<String, ScheduledFuture<?>> held = new ConcurrentHashMap<>();
  private final ConnectionStateListener connectionListener = this::onConnectionState;

  public LeaseKeeper(
      CuratorFramework zk,
      RangeTermStore store,
      Duration lease,
      ScheduledExecutorService scheduler,
      Listener listener) {
    this.zk = zk;
    this.store = store;
    this.lease = lease;
    this.scheduler = scheduler;
    this.listener = listener;
    zk.getConnectionStateListenable().addListener(connectionListener);
  }

  /** Starts renewing {@code grant}'s lease; the first renewal runs at once. */
  public void hold(TermGrant grant) {
    long periodNanos = lease.toNanos() / 4;
    ScheduledFuture<?> task =
        scheduler.scheduleWithFixedDelay(
            () -> renewOnce(grant), 0, periodNanos, TimeUnit.NANOSECONDS);
    ScheduledFuture<?> previous = held.put(grant.rangeId(), task);
    if (previous != null) {
      previous.cancel(false);
    }
  }

  /** Stops renewing; the lease runs out by itself. */
  public void release(String rangeId) {
    ScheduledFuture<?> task = held.remove(rangeId);
    if (task != null) {
      task.cancel(false);
    }
  }

  public boolean holds(String rangeId) {
    return held.containsKey(rangeId);
  }

  private void renewOnce(TermGrant grant) {
    long[] sent = new long[1];
    try {
      if (store.renew(grant, sent)) {
        listener.renewed(grant, sent[0]);
      } else {
        lose(grant.rangeId(), "lease generation moved: a successor holds term > " + grant.term());
      }
    } catch (Exception e) {
      lose(grant.rangeId(), "renewal failed: " + e);
    }
  }

  private void lose(String rangeId, String reason) {
    ScheduledFuture<?> task = held.remove(rangeId);
    if (task != null) {
      task.cancel(false);
      LOG.log(System.Logger.Level.WARNING, "lease of range {0} ended: {1}", rangeId, reason);
      listener.lost(rangeId, reason);
    }
  }

  private void onConnectionState(CuratorFramework client, ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      for (String rangeId : List.copyOf(held.keySet())) {
        lose(rangeId, "ZooKeeper connection " + state);
      }
    }
  }

  @Override
  public void close() {
    zk.getConnectionStateListenable().removeListener(connectionListener);
    for (String rangeId : List.copyOf(held.keySet())) {
      release(rangeId);
    }
  }
}
