package io.frsm.server.zk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;

/**
 * Keeps the leases of the ranges this node holds (docs/DESIGN.md "Lease invariant" rule 2): every
 * {@code L/4} it renews all of them with one ZooKeeper {@code multi} of checks ({@link
 * RangeTermStore#renewAll}) and reports the monotonic send time of every successful renewal, from
 * which the consensus core computes {@code leaseEnd = sent + L·(1−ρ)}. A failed check (a successor
 * bumped the generation), a renewal error other than a lost connection, or a LOST session ends the
 * affected leases at once: {@link Listener#lost} is called and renewal of that grant stops; holding
 * the range again needs a new term.
 *
 * <p>A SUSPENDED connection (ZooKeeper unreachable, the session perhaps still alive) only pauses
 * renewing: each lease runs on until {@code L·(1−ρ)} after its last successful renewal was sent and
 * ends by itself in the core. That is safe because a successor must first bump the term in
 * ZooKeeper and then wait {@code L·(1+ρ)}, which outlasts any lease renewed before the bump
 * (docs/PROTOCOL.md "Why it is safe"). On RECONNECTED renewing resumes at once, with a fresh send
 * time, so a ZooKeeper outage shorter than the lease costs clients nothing.
 *
 * <p>Listener calls are made under the keeper's lock and only for grants still held, so once {@link
 * #release} returned no {@link Listener#renewed} for the released grant follows: a caller that ends
 * a lease itself after {@code release} never sees it extended afterwards.
 */
public final class LeaseKeeper implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

  /** Called from the keeper's scheduler thread or Curator's event thread, never concurrently. */
  public interface Listener {
    void renewed(TermGrant grant, long sentNanos);

    void lost(String rangeId, String reason);
  }

  private final CuratorFramework zk;
  private final RangeTermStore store;
  private final Listener listener;
  private final Map<String, TermGrant> held = new ConcurrentHashMap<>();
  private final ConnectionStateListener connectionListener = this::onConnectionState;
  private final ScheduledFuture<?> renewals;
  private final LongAdder renewed = new LongAdder();
  private final LongAdder batches = new LongAdder();
  private final ScheduledExecutorService scheduler;

  /** Between SUSPENDED and RECONNECTED: no renewal is tried (it could only wait or fail). */
  private volatile boolean suspended;

  public LeaseKeeper(
      CuratorFramework zk,
      RangeTermStore store,
      Duration lease,
      ScheduledExecutorService scheduler,
      Listener listener) {
    this.zk = zk;
    this.store = store;
    this.listener = listener;
    this.scheduler = scheduler;
    zk.getConnectionStateListenable().addListener(connectionListener);
    long periodNanos = lease.toNanos() / 4;
    if (periodNanos <= 0) {
      throw new IllegalArgumentException("lease too short: " + lease);
    }
    this.renewals =
        scheduler.scheduleWithFixedDelay(this::renewAll, 0, periodNanos, TimeUnit.NANOSECONDS);
  }

  /** Starts renewing {@code grant}'s lease (with the next batch, at most {@code L/4} from now). */
  public synchronized void hold(TermGrant grant) {
    held.put(grant.rangeId(), grant);
  }

  /** Stops renewing; the lease runs out by itself (the caller may end it at once). */
  public synchronized void release(String rangeId) {
    held.remove(rangeId);
  }

  public boolean holds(String rangeId) {
    return held.containsKey(rangeId);
  }

  /** Successful renewals of one range's lease so far (one per range per batch). */
  public long renewals() {
    return renewed.sum();
  }

  /** ZooKeeper {@code multi}s sent so far, one per renewal period while any lease is held. */
  public long renewalBatches() {
    return batches.sum();
  }

  private void renewAll() {
    List<TermGrant> grants = new ArrayList<>(held.values());
    if (grants.isEmpty() || suspended) {
      return;
    }
    long[] sent = new long[1];
    boolean[] ok;
    try {
      batches.increment();
      ok = store.renewAll(grants, sent);
    } catch (KeeperException.ConnectionLossException
        | KeeperException.OperationTimeoutException e) {
      // No answer, so no evidence a successor exists: the leases run out by themselves unless a
      // renewal gets through first (SUSPENDED and RECONNECTED say when to try again).
      LOG.log(System.Logger.Level.DEBUG, "lease renewal got no answer: {0}", e.toString());
      return;
    } catch (Exception e) {
      for (TermGrant g : grants) {
        lose(g, "renewal failed: " + e);
      }
      return;
    } catch (Error e) {
      LOG.log(System.Logger.Level.ERROR, "lease renewal failed", e);
      throw e;
    }
    synchronized (this) {
      for (int i = 0; i < grants.size(); i++) {
        TermGrant g = grants.get(i);
        if (held.get(g.rangeId()) != g) {
          continue; // released or replaced while the batch was in flight
        }
        if (ok[i]) {
          renewed.increment();
          listener.renewed(g, sent[0]);
        } else {
          lose(g, "lease generation moved: a successor holds term > " + g.term());
        }
      }
    }
  }

  private synchronized void lose(TermGrant grant, String reason) {
    if (held.remove(grant.rangeId(), grant)) {
      LOG.log(
          System.Logger.Level.INFO,
          "lease of range {0} in term {1} ended: {2}",
          grant.rangeId(),
          grant.term(),
          reason);
      listener.lost(grant.rangeId(), reason);
    }
  }

  private void onConnectionState(CuratorFramework client, ConnectionState state) {
    switch (state) {
      case SUSPENDED -> {
        suspended = true;
        LOG.log(
            System.Logger.Level.INFO,
            "ZooKeeper connection suspended: renewals of {0} range lease(s) paused; each runs out"
                + " L·(1−ρ) after its last renewal unless the connection comes back first",
            held.size());
      }
      case RECONNECTED -> {
        suspended = false;
        LOG.log(
            System.Logger.Level.INFO,
            "ZooKeeper connection back: renewing {0} range lease(s) now",
            held.size());
        try {
          scheduler.execute(this::renewAll); // a fresh send time at once, not L/4 from now
        } catch (java.util.concurrent.RejectedExecutionException closed) {
          // Closed meanwhile: nothing to renew.
        }
      }
      case LOST -> {
        // The session expired (or is taken for expired): the latch entries went with it, and a
        // successor may bump at any time. Nothing is lost by ending the leases now.
        suspended = true; // until RECONNECTED: a new session renews what is still held
        for (TermGrant g : List.copyOf(held.values())) {
          lose(g, "ZooKeeper connection LOST");
        }
      }
      default -> {}
    }
  }

  @Override
  public void close() {
    renewals.cancel(false);
    zk.getConnectionStateListenable().removeListener(connectionListener);
    synchronized (this) {
      held.clear();
    }
  }
}
