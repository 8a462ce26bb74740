package io.frsm.testkit.sim;

import io.frsm.consensus.core.Input;
import java.util.Arrays;

/**
 * Session-backed leases as the simulator models them (docs/PROTOCOL.md "Leases backed by the
 * session"): the lease agent's side of the rule, and the coordination service's clock. {@link
 * LeaseService} consults it when it is on ({@link LeaseService#backLeasesWithSessions}); off, the
 * service behaves and draws exactly as before.
 *
 * <p>The rule. A holder's latch entry is ephemeral: it lives until the holder deletes it or the
 * service expires the holder's session, and no other node can bump the range's term while it lives.
 * The service expires a session no sooner than {@code S} after it last heard the session, by the
 * service's own clock (rate at most {@code 1+ρ}). A renewal of term {@code t} sent at the holder's
 * monotonic time {@code s} that succeeded was heard in that session, so the entry lives until at
 * least real time {@code r(s) + S/(1+ρ)}. The agent may therefore feed its core, at any moment
 * {@code now}, a renewal <em>credited</em> to {@code x = min(now, s + S·(1−ρ)/(1+ρ))}: a renewal as
 * if sent at {@code x}, which is never in the future and never later than the entry is known to
 * live. Because {@code x ≤ now}, feeding stops before the agent deletes its own entry (it forgets
 * the term first, as it stops real renewals first), and a successor waits {@code L·(1+ρ)} after its
 * bump, the ρ argument for ordinary renewals covers the credited ones unchanged.
 */
final class SessionBackedLeases {
  /** Ways to get the rule wrong; each must be caught by the lease workload. */
  enum Mistake {
    NONE,
    /**
     * The agent keeps feeding credited renewals of a term after it left the range's latch (after a
     * LOST): an extension that does not wait on the own-entry-deletion path.
     */
    FEED_AFTER_LEAVE,
    /** The credit is twice the session timeout: an extension past the bound. */
    PAST_THE_BOUND
  }

  private final Mistake mistake;
  private final long sessionTimeoutNanos;
  private final long serviceDriftPpm;

  /** The credit on the holder's clock: {@code S·(1−ρ)/(1+ρ)}. */
  private final long creditNanos;

  /** Per node and range: the monotonic send time of the last renewal that held, or 0. */
  private final long[][] renewalSent;

  /** Per node and range: the term the credit belongs to (0: none). */
  private final long[][] creditTerm;

  /** Per node and range: the last credited send time fed to the core. */
  private final long[][] fed;

  private long creditedRenewals;
  private long leasesKeptBeyondRenewals;

  SessionBackedLeases(
      Mistake mistake, long sessionTimeoutNanos, long rhoPpm, int capacity, int ranges) {
    this.mistake = mistake;
    this.sessionTimeoutNanos = sessionTimeoutNanos;
    // The service's clock runs at the fast bound: its sessions expire soonest in real time.
    this.serviceDriftPpm = rhoPpm;
    long credit =
        Math.multiplyExact(sessionTimeoutNanos, 1_000_000 - rhoPpm) / (1_000_000 + rhoPpm);
    this.creditNanos = mistake == Mistake.PAST_THE_BOUND ? 2 * sessionTimeoutNanos : credit;
    this.renewalSent = new long[capacity][ranges];
    this.creditTerm = new long[capacity][ranges];
    this.fed = new long[capacity][ranges];
  }

  long sessionTimeoutNanos() {
    return sessionTimeoutNanos;
  }

  /** The service's clock at real time {@code nowNanos}. */
  long serviceNanos(long nowNanos) {
    return nowNanos + Math.multiplyExact(nowNanos, serviceDriftPpm) / 1_000_000;
  }

  /** A new process: no terms, no renewals. */
  void forget(int node) {
    Arrays.fill(renewalSent[node], 0);
    Arrays.fill(creditTerm[node], 0);
    Arrays.fill(fed[node], 0);
  }

  /** A renewal of {@code term} sent at {@code sentMono} held, and reached the agent. */
  void renewed(int node, int range, long term, long sentMono) {
    if (creditTerm[node][range] != term) {
      creditTerm[node][range] = term;
      renewalSent[node][range] = sentMono;
      fed[node][range] = Long.MIN_VALUE;
    } else {
      renewalSent[node][range] = Math.max(renewalSent[node][range], sentMono);
    }
  }

  /**
   * The agent stops holding {@code range} (a lost lease, a release, a LOST session): no credited
   * renewal of it is fed after this, unless the mistake says otherwise.
   */
  void left(int node, int range) {
    if (mistake != Mistake.FEED_AFTER_LEAVE) {
      creditTerm[node][range] = 0;
    }
  }

  /**
   * The agent's loop: feeds its core a credited renewal of every term it has a renewal of, at
   * {@code min(now, sent + credit)}, when that moved. {@code heldTerms}: the terms the agent holds
   * now (0: none), consulted so that a term the agent no longer holds is not fed.
   */
  void feed(Simulation sim, int node, long[] heldTerms) {
    long now = sim.monoNanos(node);
    for (int r = 0; r < heldTerms.length; r++) {
      long t = creditTerm[node][r];
      if (t == 0 || (t != heldTerms[r] && mistake != Mistake.FEED_AFTER_LEAVE)) {
        continue;
      }
      long x = Math.min(now, renewalSent[node][r] + creditNanos);
      if (x > fed[node][r]) {
        fed[node][r] = x;
        creditedRenewals++;
        if (x > renewalSent[node][r] + creditNanos / 2) {
          leasesKeptBeyondRenewals++;
        }
        sim.input(node, new Input.LeaseRenewed(r, t, x));
      }
    }
  }

  /** Credited renewals fed to cores. */
  long creditedRenewals() {
    return creditedRenewals;
  }

  /** Credited renewals more than half the credit past the last real renewal (outages bridged). */
  long leasesKeptBeyondRenewals() {
    return leasesKeptBeyondRenewals;
  }
}
