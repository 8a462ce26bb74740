package io.frsm.consensus.core;

import java.util.HashSet;
import java.util.Set;

/**
 * What one node believes about its leadership of one range (docs/DESIGN.md "Lease invariant"), in
 * memory only: a restarted node holds no lease and no term until the coordination service grants it
 * one again. All times are this node's monotonic clock.
 *
 * <p>Phases of a term: granted (waiting {@code L·(1+ρ)}, quorum reads only) → persisting the term →
 * writable (prepares and accepts while the lease holds) → leader-only (after the scan). Losing the
 * lease stops coordination and leader-only reads at once; a higher term seen anywhere ends the
 * term.
 */
final class RangeLease {
  /** The highest term granted to this node; 0: never. */
  long term;

  long grantedAtMonoNanos;

  /**
   * No lease of an earlier term can be in force (the grant found the predecessor's release mark, or
   * the term is the range's first): no successor wait.
   */
  boolean noEarlierLease;

  /** The agent released this term on purpose: no renewal of it counts again. */
  boolean released;

  /**
   * The node competes for the range's latch (Input.Candidacy; true until told otherwise, and again
   * after a grant): operations routed here wait for the range's grant only while this holds.
   */
  boolean candidate = true;

  /** A replica persisted a higher term than this one: another node leads the range now. */
  boolean superseded;

  /** The node may act as holder while {@code now < leaseEndMonoNanos}. */
  long leaseEndMonoNanos = Long.MIN_VALUE;

  /** Renewals sent before this (by a lost lease) no longer count. */
  long lostAtMonoNanos = Long.MIN_VALUE;

  /** The term is durable at {@code q} replicas of the range: accepts may start. */
  boolean termPersisted;

  /** The scan in this term is done: local chosen (or absent) cells may be served. */
  boolean leaderOnly;

  /** The scan of this term, once the term is persisted; null before and after it. */
  RangeScan scan;

  /** The term persist in flight, if any. */
  RoundId persistRound;

  long persistSentMonoNanos;
  final Set<Integer> persistAcks = new HashSet<>();

  /**
   * With hand-offs on: every ballot this node proposes in this term has a round at least this
   * (fixed at the grant, sent with the term persist); 0: no floor (docs/PROTOCOL.md "A killed
   * holder: covering its term").
   */
  long floorRound;

  /** The predecessor's record (of term − 1) heard in this term's persist replies so far. */
  TermRecord heardPredecessor;

  /** Two persist replies named different records of term − 1: none can be trusted. */
  boolean predecessorConflict;

  /** Whether the term reached {@code q} persists once, fixing {@link #predecessor}. */
  boolean predecessorFixed;

  /**
   * The record of term − 1 learned from the first persist quorum of this term (before the scan
   * started); null if none was learned. The scan classifies the keys whose values it ballots.
   */
  TermRecord predecessor;

  /**
   * The range's replica set changed during this term (a settle's re-commits are not classified).
   */
  boolean ringChanged;

  /**
   * This term's scan completed with {@link #predecessor} known, no key skipped and the ring
   * unchanged: a shipment of this term covers term − 1.
   */
  boolean covers;

  boolean holdsLease(Now now) {
    return term > 0 && now.monoNanos() < leaseEndMonoNanos;
  }

  /**
   * Whether this node gave the range up for good in its current term (released it on purpose, or
   * saw a newer term): it coordinates nothing in the range until a new grant.
   */
  boolean givenUp() {
    return released || superseded;
  }

  /**
   * Whether no lease of this term's predecessors can be in force any more: the grant said none can
   * be (a release mark, or the range's first term), or this node has waited {@code
   * successorWaitNanos} since it learned of the grant.
   */
  boolean predecessorsEnded(Now now, long successorWaitNanos) {
    return noEarlierLease || now.monoNanos() - grantedAtMonoNanos >= successorWaitNanos;
  }

  /** A new term: nothing of the old one carries over. */
  void grant(Now now, long newTerm, boolean noEarlierLease) {
    term = newTerm;
    candidate = true; // it won the latch
    grantedAtMonoNanos = now.monoNanos();
    this.noEarlierLease = noEarlierLease;
    released = false;
    superseded = false;
    leaseEndMonoNanos = Long.MIN_VALUE;
    lostAtMonoNanos = Long.MIN_VALUE;
    termPersisted = false;
    leaderOnly = false;
    scan = null;
    persistRound = null;
    persistAcks.clear();
    floorRound = 0;
    heardPredecessor = null;
    predecessorConflict = false;
    predecessorFixed = false;
    predecessor = null;
    ringChanged = false;
    covers = false;
  }

  /** The term is over (a replica persisted a higher one): stop acting as holder. */
  void endTerm(Now now) {
    superseded = true;
    stopActing(now);
  }

  /**
   * The range's replica set changed: what the old set vouched for (the term durable at its quorum,
   * the scan of its replicas) counts no more, and the lease ends as if lost. The term goes on: it
   * is persisted again, at the new set, once a renewal sent from now on brings the lease back.
   */
  void replicaSetChanged(Now now) {
    stopActing(now);
    ringChanged = true;
    covers = false;
  }

  private void stopActing(Now now) {
    covers = false; // the scan's result counts no more: neither does what it covered
    leaseEndMonoNanos = Long.MIN_VALUE;
    lostAtMonoNanos = now.monoNanos();
    termPersisted = false;
    leaderOnly = false;
    scan = null;
    persistRound = null;
    persistAcks.clear();
  }

  @Override
  public String toString() {
    return "RangeLease{term="
        + term
        + " leaseEnd="
        + leaseEndMonoNanos
        + (noEarlierLease ? " no-earlier-lease" : "")
        + (released ? " released" : "")
        + (superseded ? " superseded" : "")
        + (candidate ? "" : " not-candidate")
        + (termPersisted ? " persisted" : "")
        + (scan != null ? " scanning" : "")
        + (leaderOnly ? " leader-only" : "")
        + (floorRound > 0 ? " floor=" + floorRound : "")
        + (predecessor != null ? " predecessor=" + predecessor : "")
        + (covers ? " covers" : "")
        + "}";
  }
}
