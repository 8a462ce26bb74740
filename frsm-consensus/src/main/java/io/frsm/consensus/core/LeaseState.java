package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.List;

/**
 * One node's range leadership (docs/DESIGN.md "Lease invariant" rules 1–5) as the core sees it: the
 * terms the coordination service granted, the leases its renewals gave, the wait of a successor,
 * the term persist at {@code q} replicas, and leader-only mode. The coordination service itself
 * (ZooKeeper) is outside: its answers arrive as inputs.
 *
 * <p>The safety argument: a renewal sent at the holder's monotonic time {@code s} succeeded before
 * the successor's term bump revoked it, so it was sent before the bump in real time; the holder's
 * lease ends {@code L·(1−ρ)} later by its clock, at most {@code L} later in real time (its clock
 * runs at least at {@code 1−ρ}). The successor waits {@code L·(1+ρ)} by its own clock from when it
 * learned of the bump, at least {@code L} in real time (its clock runs at most at {@code 1+ρ}). So
 * the old lease has ended before the successor's first accept, and the successor's term, durable at
 * {@code q} replicas before that accept, kills any message of the old holder still in flight.
 *
 * <p>The core's one view of it: this class answers the questions of the rest of the core and hands
 * each input to the part that owns it, all over one table of {@link RangeLease}s ({@link
 * RangeLeases}): the coordination service's inputs ({@link LeaseTerms}), the term persist ({@link
 * TermPersists}), the scan into leader-only mode ({@link LeaderOnlyScans}), placement changes
 * ({@link LeaseVoterChanges}) and the publication to a read gate ({@link ServabilityPublication}).
 *
 * <p>A range scan's quorum reads run as the coordinator's runs: the calls that may start them take
 * a {@link ScanReads} to submit them through, so this class holds no reference to the coordinator.
 */
final class LeaseState {
  /** Where the scans' quorum reads go: the coordinator's per-key queues. */
  @FunctionalInterface
  interface ScanReads {
    /** Queues {@code read} (a get under a negative request id) like a client's operation. */
    void submit(Now now, Input.ClientRequest read, List<Effect> out);
  }

  private final LeaseConfig config;
  private final RangeLeases ranges;
  private final ServabilityPublication publication;
  private final TermPersists persists;
  private final LeaseTerms terms;
  private final LeaderOnlyScans scans;
  private final LeaseVoterChanges voterChanges;

  LeaseState(
      CoreConfig config, CoreTimings timings, Incarnation incarnation, CoreCounters counters) {
    this.config = config.leases();
    // Hand-offs on: terms get floors and learn their predecessor's record (PROTOCOL.md).
    boolean termFloors = config.modes().handOff() && config.leases().enabled();
    this.ranges = new RangeLeases(config.placement());
    this.publication = new ServabilityPublication(ranges);
    this.persists =
        new TermPersists(
            ranges, incarnation, timings.roundTimeoutNanos(), this.config.successorWaitNanos());
    this.terms = new LeaseTerms(config, ranges, persists, publication, incarnation, termFloors);
    this.scans =
        new LeaderOnlyScans(
            config,
            ranges,
            publication,
            incarnation,
            timings.roundTimeoutNanos(),
            counters,
            termFloors);
    this.voterChanges = new LeaseVoterChanges(config, ranges, persists, publication, incarnation);
  }

  boolean enabled() {
    return config.enabled();
  }

  /** From now on each scan's reads that answered and keys it left unread go to {@code to}. */
  void reportScannedKeysTo(RangeScan.Progress to) {
    scans.reportScannedKeysTo(to);
  }

  int rangeOf(Key key) {
    return ranges.rangeOf(key);
  }

  /** The term prepares and accepts for {@code key} carry (0 with leases off). */
  long termFor(Key key) {
    return enabled() ? ranges.of(key).term : 0;
  }

  /**
   * Rule 3 and 4: this node may start a prepare or accept on {@code key} only while it holds the
   * range's lease and its term is durable at {@code q} replicas.
   */
  boolean mayCoordinate(Now now, Key key) {
    if (!enabled()) {
      return true;
    }
    RangeLease r = ranges.of(key);
    return r.termPersisted && r.holdsLease(now);
  }

  /**
   * Rule 5: the key may be served in leader-only mode in the current term (the lease is checked
   * apart): its range's scan is done, or the scan settled this key ahead of its order (a pull,
   * docs/PROTOCOL.md "Hot keys first").
   */
  boolean leaderOnly(Key key) {
    if (!enabled()) {
      return false;
    }
    RangeLease r = ranges.of(key);
    return r.leaderOnly || (r.scan != null && r.termPersisted && r.scan.settledAhead(key));
  }

  /** See {@link LeaderOnlyScans#pullForward}; nothing with leases off. */
  void pullForward(Now now, Key key, ScanReads reads, List<Effect> out) {
    if (!enabled()) {
      return;
    }
    scans.pullForward(now, key, reads, out);
  }

  /**
   * Whether an operation waiting here for {@code key}'s range would wait in vain: this node gave
   * the range up for good in its current term (see {@link RangeLease#givenUp}), or no longer
   * competes for it and holds no lease of it ({@link Input.Candidacy}).
   */
  boolean waitsInVain(Now now, Key key) {
    if (!enabled()) {
      return false;
    }
    RangeLease r = ranges.of(key);
    return r.givenUp() || (!r.candidate && !r.holdsLease(now));
  }

  boolean holdsLease(Now now, Key key) {
    return enabled() && ranges.of(key).holdsLease(now);
  }

  /** See {@link ServabilityPublication#publishTo}. */
  void publishTo(ReadGate gate) {
    publication.publishTo(gate);
  }

  /** See {@link ServabilityPublication#publish}: called at the end of every step. */
  void publish() {
    publication.publish();
  }

  // ---- Inputs from the coordination service (LeaseTerms) ---------------------------------------

  void granted(Now now, Input.TermGranted g, List<Effect> out) {
    terms.granted(now, g, out);
  }

  /** See {@link LeaseTerms#release}. */
  void release(Now now, Input.ReleaseLease release, List<Effect> out) {
    terms.release(now, release, out);
  }

  void renewed(Now now, Input.LeaseRenewed renewal) {
    terms.renewed(now, renewal);
  }

  void candidacy(Input.Candidacy candidacy) {
    terms.candidacy(candidacy);
  }

  void lost(Now now, Input.LeaseLost lost) {
    terms.lost(now, lost);
  }

  /** A replica persisted {@code term} for {@code key}'s range: if above ours, our term is over. */
  void superseded(Now now, Key key, long term) {
    terms.superseded(now, rangeOf(key), term);
  }

  // ---- Term persist and scans (TermPersists, LeaderOnlyScans) -----------------------------------

  /**
   * Ticks each range in order: its scan (whose reads go to {@code reads}), then its term persist
   * ({@link TermPersists#tick}).
   */
  void tick(Now now, ScanReads reads, List<Effect> out) {
    if (!enabled()) {
      return;
    }
    for (int i = 0; i < ranges.count(); i++) {
      RangeLease r = ranges.at(i);
      scans.tick(now, r, reads, out);
      persists.tick(now, i, r, out);
    }
  }

  /**
   * A reply on a reserved range-term key: a term persist acknowledged or refused, or a listing for
   * the range's scan (whose reads go to {@code reads}).
   */
  void onTermReply(Now now, int from, Message.Reply reply, ScanReads reads, List<Effect> out) {
    int range = RangeTerm.rangeOf(reply.key());
    if (range < 0 || range >= ranges.count()) {
      return; // not a range of this placement: nothing of ours to update
    }
    RangeLease r = ranges.at(range);
    if (reply instanceof Message.StaleTerm stale) {
      terms.superseded(now, range, stale.term());
      return;
    }
    if (reply instanceof Message.KeysListed listed) {
      scans.onListed(now, from, r, listed, reads, out);
      return;
    }
    if (persists.onReply(from, range, r, reply)) {
      scans.start(now, range, r, out);
    }
  }

  /**
   * An internal read of a scan ended (request id {@code id} < 0); further reads of the scan go to
   * {@code reads}.
   */
  void scanReadDone(Now now, long id, Outcome outcome, ScanReads reads, List<Effect> out) {
    scans.scanReadDone(now, id, outcome, reads, out);
  }

  /** Scans that completed (diagnostics and tests). */
  long scansCompleted() {
    return scans.scansCompleted();
  }

  // ---- Term floors and coverage (docs/PROTOCOL.md "A killed holder: covering its term") -------

  /**
   * The floor of this node's ballots for {@code key} in term {@code term}: the term's floor if it
   * is this node's current term of the key's range, else 0 (a message of an older term, refused).
   */
  long floorFor(Key key, long term) {
    RangeLease r = ranges.of(key);
    return term != 0 && r.term == term ? r.floorRound : 0;
  }

  /**
   * The predecessor record this node's current, not given-up term of {@code key}'s range learned
   * from its persist quorum; null if none (or no such term).
   */
  TermRecord predecessorOf(Key key) {
    RangeLease r = ranges.of(key);
    return r.term == 0 || r.givenUp() ? null : r.predecessor;
  }

  /**
   * The term a shipment of {@code term} of {@code range} covers: {@code term − 1} if this term's
   * scan completed with the predecessor's record known, no key skipped and the ring unchanged; else
   * 0. Checked here, kept on: a covering shipment without those is a bug.
   */
  long coveredTerm(int range, long term) {
    RangeLease r = ranges.of(range);
    if (r.term != term || !r.covers) {
      return 0;
    }
    if (!r.predecessorFixed
        || r.predecessor == null
        || r.predecessor.term() != term - 1
        || r.ringChanged
        || !r.leaderOnly) {
      throw new IllegalStateException("a shipment would cover a term it cannot: " + r);
    }
    return term - 1;
  }

  // ---- Hand-off (HandOffDrains, HandOffBases, HandOffImports) -----------------------------------

  /** The highest term granted to this node for {@code range} (0: never). */
  long term(int range) {
    return ranges.of(range).term;
  }

  /** Whether this node still holds {@code term} of {@code range} and has not given it up. */
  boolean stillHolds(int range, long term) {
    RangeLease r = ranges.of(range);
    return enabled() && r.term == term && !r.givenUp();
  }

  /** Whether {@code range} is in leader-only mode in {@code term}. */
  boolean leaderOnlyIn(int range, long term) {
    RangeLease r = ranges.of(range);
    return r.term == term && r.leaderOnly;
  }

  /**
   * Whether this node holds {@code term} of {@code range} persisted at {@code q} replicas, not
   * given up and not yet in leader-only mode: the point where a scan (or an import) decides.
   */
  boolean awaitsLeaderOnly(int range, long term) {
    RangeLease r = ranges.of(range);
    return enabled() && r.term == term && r.termPersisted && !r.leaderOnly && !r.givenUp();
  }

  /**
   * Leader-only mode in {@code term} from an imported hand-off instead of the scan
   * (docs/PROTOCOL.md "Hand-off instead of a scan"); the scan, if it started, is dropped.
   */
  boolean enterLeaderOnlyByHandOff(int range, long term) {
    if (!awaitsLeaderOnly(range, term)) {
      return false;
    }
    scans.enterByHandOff(range, term);
    return true;
  }

  /** See {@link LeaderOnlyScans#takeEntries}. */
  List<long[]> takeEntries() {
    return scans.takeEntries();
  }

  // ---- Placement changes (LeaseVoterChanges) --------------------------------------------------

  /** See {@link LeaseVoterChanges#placementChanged}. */
  void placementChanged(Now now, PlacementChange change, List<Effect> out) {
    voterChanges.placementChanged(now, change, out);
  }

  /** See {@link LeaseVoterChanges#keptLeaderOnly}. */
  long keptLeaderOnly() {
    return voterChanges.keptLeaderOnly();
  }

  /** Of {@link #keptLeaderOnly}, the changes of more than one voter (a sabotage's only). */
  long keptAcrossMoreThanOne() {
    return voterChanges.keptAcrossMoreThanOne();
  }

  @Override
  public String toString() {
    return ranges.toString();
  }
}
