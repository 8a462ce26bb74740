package io.frsm.consensus.core;

import java.util.List;

/**
 * What the coordination service (ZooKeeper, outside the core) says about one node's ranges, as it
 * arrives: a term granted, a lease renewed or lost, a candidacy, a term handed back on purpose (a
 * release), and a higher term seen at a replica. Each writes the range's {@link RangeLease} (rules
 * 1 and 2 of docs/DESIGN.md "Lease invariant", and the release that lets a successor skip its
 * wait); a grant that needs no successor wait starts its term persist at once ({@link
 * TermPersists}).
 *
 * <p>A renewal sent at the holder's monotonic time {@code s} extends the lease to {@code s +
 * L·(1−ρ)}; a successor waits {@code L·(1+ρ)} from its grant, or not at all when the grant found no
 * earlier lease in force (see {@link LeaseState} for why that suffices).
 */
final class LeaseTerms {
  private final RangeLeases leases;
  private final TermPersists persists;
  private final ServabilityPublication publication;
  private final Incarnation incarnation;

  /** {@code L·(1−ρ)} and {@code L·(1+ρ)}, computed once. */
  private final long leaseAfterRenewalNanos;

  private final long successorWaitNanos;

  private final boolean skipLeaseWait;
  private final boolean releaseKeepsLease;
  private final boolean releaseBeforeWait;

  /** Hand-offs on: terms get floors and learn their predecessor's record (PROTOCOL.md). */
  private final boolean termFloors;

  LeaseTerms(
      CoreConfig config,
      RangeLeases leases,
      TermPersists persists,
      ServabilityPublication publication,
      Incarnation incarnation,
      boolean termFloors) {
    this.leases = leases;
    this.persists = persists;
    this.publication = publication;
    this.incarnation = incarnation;
    this.leaseAfterRenewalNanos = config.leases().leaseAfterRenewalNanos();
    this.successorWaitNanos = config.leases().successorWaitNanos();
    this.skipLeaseWait = config.broken(Sabotage.SKIP_LEASE_WAIT);
    this.releaseKeepsLease = config.broken(Sabotage.RELEASE_KEEPS_LEASE);
    this.releaseBeforeWait = config.broken(Sabotage.RELEASE_BEFORE_WAIT);
    this.termFloors = termFloors;
  }

  void granted(Now now, Input.TermGranted g, List<Effect> out) {
    RangeLease r = leases.of(g.range());
    if (g.term() <= r.term) {
      return; // a duplicate or a late grant of a term this node already moved past
    }
    r.grant(now, g.term(), g.noEarlierLease());
    if (termFloors) {
      // Above every round this incarnation proposed so far, whatever the wall clock says: no ballot
      // of an earlier term of this node can look like one of this term's.
      r.floorRound = Math.max(Math.max(now.wallMicros(), 1), incarnation.highestBallotRound() + 1);
    }
    publication.servabilityChanged();
    if (g.noEarlierLease() || skipLeaseWait) {
      persists.send(now, g.range(), r, out);
    }
  }

  /**
   * A hand-over on purpose: the lease of {@code term} ends now for good, and the agent learns
   * whether it may mark the term released. Clean only if no lease of this term (ended here) nor of
   * an earlier one (ended by the successor wait, or released before this term's grant) can be in
   * force: a successor that finds the mark skips its own wait, so marking a term whose holder had
   * not waited would let it overlap a lease two terms back.
   */
  void release(Now now, Input.ReleaseLease release, List<Effect> out) {
    RangeLease r = leases.of(release.range());
    if (release.term() != r.term) {
      // Not this node's current term (an older one, or one it never heard of): nothing to end.
      out.add(new Effect.LeaseReleased(release.range(), release.term(), false));
      return;
    }
    if (!releaseKeepsLease) {
      r.leaseEndMonoNanos = Long.MIN_VALUE;
      r.lostAtMonoNanos = now.monoNanos();
      r.released = true;
      // Nothing of the term is needed any more: its persist and its scan would only cost reads.
      r.persistRound = null;
      r.scan = null;
      publication.servabilityChanged();
    }
    boolean clean = releaseBeforeWait || r.predecessorsEnded(now, successorWaitNanos);
    out.add(new Effect.LeaseReleased(release.range(), release.term(), clean));
  }

  void renewed(Now now, Input.LeaseRenewed renewal) {
    RangeLease r = leases.of(renewal.range());
    long sent = renewal.requestSentMonoNanos();
    if (sent > now.monoNanos()) {
      throw new IllegalArgumentException(
          "renewal sent at " + sent + " is in this node's future " + now.monoNanos());
    }
    if (renewal.term() != r.term || sent <= r.lostAtMonoNanos || r.released) {
      return; // for an older term, sent before the lease was lost, or of a released term
    }
    r.leaseEndMonoNanos =
        Math.max(r.leaseEndMonoNanos, Math.addExact(sent, leaseAfterRenewalNanos));
    publication.servabilityChanged();
  }

  void candidacy(Input.Candidacy candidacy) {
    leases.of(candidacy.range()).candidate = candidacy.candidate();
  }

  void lost(Now now, Input.LeaseLost lost) {
    RangeLease r = leases.of(lost.range());
    r.leaseEndMonoNanos = Long.MIN_VALUE;
    r.lostAtMonoNanos = now.monoNanos();
    publication.servabilityChanged();
  }

  /** A replica persisted {@code term} for {@code range}: if above ours, our term is over. */
  void superseded(Now now, int range, long term) {
    RangeLease r = leases.of(range);
    if (term > r.term) {
      r.endTerm(now);
      publication.servabilityChanged();
    }
  }
}
