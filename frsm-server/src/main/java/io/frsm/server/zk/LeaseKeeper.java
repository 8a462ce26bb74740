package io.frsm.server.zk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
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
 * renewing: each lease runs on until {@code L·(1−ρ)} after its last renewal, real or credited by
 * the session (below), and ends by itself in the core. That is safe because a successor must first
 * bump the term in ZooKeeper and then wait {@code L·(1+ρ)}, which outlasts any lease renewed before
 * the bump (docs/PROTOCOL.md "Why it is safe"). On RECONNECTED renewing resumes at once, with a
 * fresh send time.
 *
 * <p>Beyond the renewals, the session carries a lease (docs/PROTOCOL.md "Leases backed by the
 * session"): while its latch entry lives no other node can bump the term, and the entry lives until
 * this node deletes it or the ZooKeeper leader expires the session, no sooner than the negotiated
 * session timeout {@code S} after it last heard the session. A renewal that succeeded in the
 * session that owns the grant's latch entry ({@link TermGrant#latchSession}; the session was the
 * same before the renewal was stamped and after it was answered), sent at {@code s}, proves the
 * entry alive until {@code s + (S/3)·(1−ρ)/(1+ρ)} on this node's clock. When a renewal cannot be
 * sent (SUSPENDED) or gets no answer, the keeper reports a renewal <em>credited</em> to {@code x =
 * min(now, s + (S/3)·(1−ρ)/(1+ρ))} instead — never in the future, never past the proof — as long as
 * the current session is still the entry's. A ZooKeeper outage shorter than about {@code S/3 + L}
 * then costs clients nothing. Credited renewals are reported under the same lock and for held
 * grants only, so once a grant is released or lost none follows, and a latch entry is deleted only
 * after that (or from a later session): a successor that bumps after the delete waits {@code
 * L·(1+ρ)}, which outlasts every lease credited before it, as for a plain renewal.
 *
 * <p>Listener calls are made under the keeper's lock and only for grants still held, so once {@link
 * #release} returned no {@link Listener#renewed} for the released grant follows: a caller that ends
 * a lease itself after {@code release} never sees it extended afterwards.
 */
public final class LeaseKeeper implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LeaseKeeper.class.getName());

  /**
   * Called from the keeper's scheduler thread, its credit thread or Curator's event thread, always
   * under the keeper's lock: never concurrently.
   */
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

  /** ρ in parts per million, as the core's lease rules use it. */
  private final long driftPpm;

  /**
   * Per held range: the send time of its last renewal proven in the grant's latch session, and the
   * last credited send time reported. Under the keeper's lock.
   */
  private final Map<String, long[]> proofs = new java.util.HashMap<>();

  /** The smallest session timeout negotiated so far, in nanoseconds (0: none yet). */
  private long sessionTimeoutNanos;

  /** Suspensions: when the current one began (0: connected), and the ranges it credited. */
  private long suspendedSinceNanos;

  private final java.util.Set<String> creditedInSuspension = new java.util.HashSet<>();
  private final LongAdder keptThroughSuspension = new LongAdder();

  /**
   * Credits on a thread of their own: a renewal stuck in Curator's retries (ZooKeeper just went)
   * holds the renewal thread for seconds, and the leases must not run out meanwhile.
   */
  private final ScheduledExecutorService creditor =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "frsm-lease-credit");
            t.setDaemon(true);
            return t;
          });

  private final long periodNanos;

  /** The current session's id, 0 if none is known now. */
  private final LongSupplier sessions;

  /** When the renewal in flight was started (0: none in flight). */
  private volatile long renewalSince;

  private volatile long longestSuspensionNanos;

  public LeaseKeeper(
      CuratorFramework zk,
      RangeTermStore store,
      Duration lease,
      ScheduledExecutorService scheduler,
      Listener listener) {
    this(zk, store, lease, 1_000, scheduler, listener);
  }

  /**
   * @param driftPartsPerMillion ρ, as the core's lease rules use it (consensus.clockDriftPpm)
   */
  public LeaseKeeper(
      CuratorFramework zk,
      RangeTermStore store,
      Duration lease,
      long driftPartsPerMillion,
      ScheduledExecutorService scheduler,
      Listener listener) {
    this(zk, store, lease, driftPartsPerMillion, scheduler, listener, () -> sessionOf(zk));
  }

  /**
   * As the public constructor, with the current session's id read from {@code sessions} (0: none
   * known now) instead of the client's handle: tests script a session change with it.
   */
  LeaseKeeper(
      CuratorFramework zk,
      RangeTermStore store,
      Duration lease,
      long driftPartsPerMillion,
      ScheduledExecutorService scheduler,
      Listener listener,
      LongSupplier sessions) {
    if (driftPartsPerMillion < 0 || driftPartsPerMillion >= 1_000_000) {
      throw new IllegalArgumentException("drift " + driftPartsPerMillion + " ppm");
    }
    this.driftPpm = driftPartsPerMillion;
    this.sessions = sessions;
    this.zk = zk;
    this.store = store;
    this.listener = listener;
    this.scheduler = scheduler;
    zk.getConnectionStateListenable().addListener(connectionListener);
    this.periodNanos = lease.toNanos() / 4;
    if (periodNanos <= 0) {
      throw new IllegalArgumentException("lease too short: " + lease);
    }
    this.renewals =
        scheduler.scheduleWithFixedDelay(this::renewAll, 0, periodNanos, TimeUnit.NANOSECONDS);
    creditor.scheduleWithFixedDelay(
        this::creditIfStalled, periodNanos, periodNanos / 2, TimeUnit.NANOSECONDS);
  }

  /** Starts renewing {@code grant}'s lease (with the next batch, at most {@code L/4} from now). */
  public synchronized void hold(TermGrant grant) {
    held.put(grant.rangeId(), grant);
    proofs.remove(grant.rangeId());
  }

  /**
   * Stops renewing, real or credited; the lease runs out by itself (the caller may end it at once).
   * Only after this may the caller delete the grant's latch entry.
   */
  public synchronized void release(String rangeId) {
    held.remove(rangeId);
    proofs.remove(rangeId);
  }

  /** Leases still held at the end of a suspension during which the session carried them. */
  public long keptThroughSuspension() {
    return keptThroughSuspension.sum();
  }

  /** The longest suspension that ended with a lease carried through it, in nanoseconds. */
  public long longestSuspensionNanos() {
    return longestSuspensionNanos;
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
    if (grants.isEmpty()) {
      return;
    }
    if (suspended) {
      return; // the creditor carries the leases
    }
    long[] sent = new long[1];
    boolean[] ok;
    long sessionBefore = sessionId();
    renewalSince = System.nanoTime();
    try {
      batches.increment();
      ok = store.renewAll(grants, sent);
    } catch (KeeperException.ConnectionLossException
        | KeeperException.OperationTimeoutException e) {
      // No answer, so no evidence a successor exists: the session carries the leases it proved
      // (credit), else they run out by themselves unless a renewal gets through first.
      LOG.log(System.Logger.Level.DEBUG, "lease renewal got no answer: {0}", e.toString());
      renewalSince = 0;
      try {
        creditor.execute(this::credit);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // Closed meanwhile: nothing to credit.
      }
      return;
    } catch (Exception e) {
      renewalSince = 0;
      for (TermGrant g : grants) {
        lose(g, "renewal failed: " + e);
      }
      return;
    } catch (Error e) {
      renewalSince = 0;
      LOG.log(System.Logger.Level.ERROR, "lease renewal failed", e);
      throw e;
    }
    renewalSince = 0;
    // Answered in the session it was sent in: no handle changed in between (a handle never gets
    // an older session back), so the session was heard after the stamp.
    long session = sessionBefore == sessionId() ? sessionBefore : 0;
    synchronized (this) {
      noteSessionTimeout();
      for (int i = 0; i < grants.size(); i++) {
        TermGrant g = grants.get(i);
        if (held.get(g.rangeId()) != g) {
          continue; // released or replaced while the batch was in flight
        }
        if (ok[i]) {
          renewed.increment();
          if (session != 0 && session == g.latchSession()) {
            long[] proof =
                proofs.computeIfAbsent(
                    g.rangeId(), k -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
            proof[0] = Math.max(proof[0], sent[0]);
            proof[1] = Math.max(proof[1], sent[0]);
          }
          listener.renewed(g, sent[0]);
        } else {
          lose(g, "lease generation moved: a successor holds term > " + g.term());
        }
      }
    }
  }

  /** On the creditor: credits while suspended or while a renewal has waited a period or more. */
  private void creditIfStalled() {
    long since = renewalSince;
    if (suspended || (since != 0 && System.nanoTime() - since > periodNanos)) {
      credit();
    }
  }

  /**
   * Reports, for every held grant with a renewal proven in its latch session that is still the
   * current session, a renewal credited to {@code min(now, proof + credit)} if that moved.
   */
  private synchronized void credit() {
    long session = sessionId();
    long credit = creditNanos();
    if (session == 0 || credit <= 0) {
      return;
    }
    long now = System.nanoTime();
    for (TermGrant g : held.values()) {
      long[] proof = proofs.get(g.rangeId());
      if (proof == null || g.latchSession() != session) {
        continue; // no proof, or the entry's session is gone: the lease runs out by itself
      }
      long x = Math.min(now, proof[0] + credit);
      if (x > proof[1]) {
        proof[1] = x;
        if (suspendedSinceNanos != 0) {
          creditedInSuspension.add(g.rangeId());
        }
        listener.renewed(g, x);
      }
    }
  }

  /**
   * {@code (S/3)·(1−ρ)/(1+ρ)}: how long after a proven renewal the entry surely lives, on this
   * node's clock. A third of {@code S}, not all of it: a client connected to a follower is heard by
   * the leader, which alone expires sessions, only through the follower's pings (docs/PROTOCOL.md
   * "Leases backed by the session", point 1).
   */
  private long creditNanos() {
    return sessionTimeoutNanos / 3 / (1_000_000 + driftPpm) * (1_000_000 - driftPpm);
  }

  /**
   * Keeps the smallest negotiated session timeout seen: the server may renegotiate it on a
   * reconnect, and only a timeout the session had all along bounds its end.
   */
  private void noteSessionTimeout() {
    try {
      long negotiated = zk.getZookeeperClient().getZooKeeper().getSessionTimeout() * 1_000_000L;
      if (negotiated > 0) {
        sessionTimeoutNanos =
            sessionTimeoutNanos == 0 ? negotiated : Math.min(sessionTimeoutNanos, negotiated);
      }
    } catch (Exception e) {
      // No handle now: keep what was seen.
    }
  }

  /** The current session's id, or 0 (never a session's) if none is known now. */
  private long sessionId() {
    return sessions.getAsLong();
  }

  private static long sessionOf(CuratorFramework zk) {
    try {
      return zk.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  private synchronized void lose(TermGrant grant, String reason) {
    proofs.remove(grant.rangeId());
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
        synchronized (this) {
          if (suspendedSinceNanos == 0) {
            suspendedSinceNanos = System.nanoTime();
            creditedInSuspension.clear();
          }
        }
        try {
          creditor.execute(this::credit); // at once
        } catch (java.util.concurrent.RejectedExecutionException closed) {
          // Closed meanwhile: nothing to credit.
        }
        LOG.log(
            System.Logger.Level.INFO,
            "ZooKeeper connection suspended: renewals of {0} range lease(s) paused; the session"
                + " carries each for (S/3)·(1−ρ)/(1+ρ) + L·(1−ρ) after its last renewal, unless the"
                + " connection comes back first",
            held.size());
      }
      case RECONNECTED -> {
        suspended = false;
        suspensionEnded();
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
        // successor may bump at any time. Nothing is lost by ending the leases now. The client may
        // have declared it itself, without any server (docs/PROTOCOL.md "Who declares a session
        // lost"): then the server still holds the entries until it expires the session too.
        suspended = true; // until RECONNECTED: a new session renews what is still held
        LOG.log(
            System.Logger.Level.INFO,
            "ZooKeeper session LOST (expired by ZooKeeper, or given up by the client after S"
                + " SUSPENDED or 4/3·S without hearing ZooKeeper): ending {0} range lease(s)",
            held.size());
        for (TermGrant g : List.copyOf(held.values())) {
          lose(g, "ZooKeeper connection LOST");
        }
        synchronized (this) {
          creditedInSuspension.clear(); // nothing was kept through this one
        }
      }
      default -> {}
    }
  }

  private synchronized void suspensionEnded() {
    if (suspendedSinceNanos == 0) {
      return;
    }
    long lasted = System.nanoTime() - suspendedSinceNanos;
    suspendedSinceNanos = 0;
    int kept = 0;
    for (String range : creditedInSuspension) {
      kept += held.containsKey(range) ? 1 : 0;
    }
    creditedInSuspension.clear();
    if (kept > 0) {
      keptThroughSuspension.add(kept);
      longestSuspensionNanos = Math.max(longestSuspensionNanos, lasted);
      LOG.log(
          System.Logger.Level.INFO,
          "ZooKeeper connection back after {0} ms: the session carried {1} range lease(s) through",
          lasted / 1_000_000,
          kept);
    }
  }

  @Override
  public void close() {
    renewals.cancel(false);
    creditor.shutdownNow();
    zk.getConnectionStateListenable().removeListener(connectionListener);
    synchronized (this) {
      held.clear();
    }
  }
}
