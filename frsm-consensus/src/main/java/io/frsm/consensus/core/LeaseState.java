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

  /** {@code L·(1−ρ)} and {@code L·(1+ρ)}, computed once. */
  private final long leaseAfterRenewalNanos;

  private final long successorWaitNanos;

  /** The current placement (ranges never change, replica sets may: {@link #placementChanged}). */
  private Placement placement;

  private final Incarnation incarnation;
  private final long roundTimeoutNanos;
  private final boolean skipLeaseWait;
  private final boolean releaseKeepsLease;
  private final boolean releaseBeforeWait;
  private final boolean skipRangeScan;
  private final boolean pullWithoutRead;
  private final boolean hotKeysFirst;

  /** Hand-offs on: terms get floors and learn their predecessor's record (PROTOCOL.md). */
  private final boolean termFloors;

  private final boolean keepAcrossAnyVoterChange;
  private final boolean keepWithoutRePersist;
  private final RangeScan.Progress scanProgress;

  /** Where the scans' per-key outcomes go (the core's leader-only reads); none until told. */
  private RangeScan.Progress keyOutcomes = RangeScan.Progress.NONE;

  private final RangeLease[] ranges;

  /** Entries into leader-only mode not yet taken ({@link #takeEntries}). */
  private final List<long[]> entries = new java.util.ArrayList<>();

  /** The scan each internal read belongs to; a read of an abandoned scan is ignored. */
  private final java.util.Map<Long, RangeScan> scanReads = new java.util.HashMap<>();

  private long nextReadId = -1;
  private long scansCompleted;
  private long keptLeaderOnly;
  private long keptAcrossMoreThanOne;

  /** Told of every change to a range's servability (reads outside the core's thread). */
  private ReadGate gate = ReadGate.NONE;

  /** A write that decides a range's servability happened since the last publication. */
  private boolean servabilityChanged;

  /** Publications skipped for want of a change; every {@link #FULL_CHECK_EVERY}th runs anyway. */
  private long publishesSkipped;

  private static final int FULL_CHECK_EVERY = 1024;

  private long[] publishedUntil;
  private long[] publishedTerm;
  private long[] modeEntries;
  private boolean[] wasLeaderOnly;

  LeaseState(
      CoreConfig config, CoreTimings timings, Incarnation incarnation, CoreCounters counters) {
    this.config = config.leases();
    this.leaseAfterRenewalNanos = this.config.leaseAfterRenewalNanos();
    this.successorWaitNanos = this.config.successorWaitNanos();
    this.placement = config.placement();
    this.incarnation = incarnation;
    this.roundTimeoutNanos = timings.roundTimeoutNanos();
    this.skipLeaseWait = config.broken(Sabotage.SKIP_LEASE_WAIT);
    this.releaseKeepsLease = config.broken(Sabotage.RELEASE_KEEPS_LEASE);
    this.releaseBeforeWait = config.broken(Sabotage.RELEASE_BEFORE_WAIT);
    this.skipRangeScan = config.broken(Sabotage.SKIP_RANGE_SCAN);
    this.pullWithoutRead = config.broken(Sabotage.PULL_FORWARD_WITHOUT_READ);
    this.hotKeysFirst = config.modes().hotKeysFirst();
    this.termFloors = config.modes().handOff() && config.leases().enabled();
    this.keepAcrossAnyVoterChange =
        config.broken(Sabotage.KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE);
    this.keepWithoutRePersist = config.broken(Sabotage.KEEP_LEADER_ONLY_WITHOUT_REPERSIST);
    this.scanProgress =
        new RangeScan.Progress() {
          @Override
          public void settledByScan() {
            counters.keySettledByScan();
          }

          @Override
          public void settledByPull(long nanos) {
            counters.keySettledByPull(nanos);
          }

          @Override
          public void keyRead(Key key) {
            keyOutcomes.keyRead(key);
          }

          @Override
          public void keySkipped(Key key) {
            counters.keySkippedByScan();
            keyOutcomes.keySkipped(key);
          }
        };
    this.ranges = new RangeLease[placement.rangeCount()];
    for (int i = 0; i < ranges.length; i++) {
      ranges[i] = new RangeLease();
    }
  }

  boolean enabled() {
    return config.enabled();
  }

  /** From now on each scan's reads that answered and keys it left unread go to {@code to}. */
  void reportScannedKeysTo(RangeScan.Progress to) {
    this.keyOutcomes = java.util.Objects.requireNonNull(to);
  }

  int rangeOf(Key key) {
    return placement.rangeOf(key);
  }

  /** The term prepares and accepts for {@code key} carry (0 with leases off). */
  long termFor(Key key) {
    return enabled() ? ranges[rangeOf(key)].term : 0;
  }

  /**
   * Rule 3 and 4: this node may start a prepare or accept on {@code key} only while it holds the
   * range's lease and its term is durable at {@code q} replicas.
   */
  boolean mayCoordinate(Now now, Key key) {
    if (!enabled()) {
      return true;
    }
    RangeLease r = ranges[rangeOf(key)];
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
    RangeLease r = ranges[rangeOf(key)];
    return r.leaderOnly || (r.scan != null && r.termPersisted && r.scan.settledAhead(key));
  }

  /**
   * An operation arrived for {@code key}: if its range is being scanned in this node's term and the
   * scan has not settled the key, the key is pulled forward ({@link RangeScan#pull}): its scan read
   * is queued now, ahead of the operation, through {@code reads}. Does nothing otherwise (no scan,
   * no lease, the scan's pull bounds reached).
   */
  void pullForward(Now now, Key key, ScanReads reads, List<Effect> out) {
    if (!enabled() || !hotKeysFirst) {
      return;
    }
    RangeLease r = ranges[rangeOf(key)];
    if (r.scan != null && r.termPersisted && !r.leaderOnly && r.holdsLease(now)) {
      r.scan.pull(now, key, readsOf(r.scan, reads), out);
    }
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
    RangeLease r = ranges[rangeOf(key)];
    return r.givenUp() || (!r.candidate && !r.holdsLease(now));
  }

  boolean holdsLease(Now now, Key key) {
    return enabled() && ranges[rangeOf(key)].holdsLease(now);
  }

  /**
   * From now on {@code gate} learns, at the end of every step, each range whose servability changed
   * (see {@link #publish}).
   */
  void publishTo(ReadGate gate) {
    this.gate = java.util.Objects.requireNonNull(gate);
    publishedUntil = new long[ranges.length];
    publishedTerm = new long[ranges.length];
    modeEntries = new long[ranges.length];
    wasLeaderOnly = new boolean[ranges.length];
    java.util.Arrays.fill(publishedUntil, Long.MIN_VALUE);
  }

  /**
   * Tells the gate each range whose leader-only servability changed since the last call: until when
   * (the lease's end while in leader-only mode in the current term, else never), in which term and
   * which entry into leader-only mode. Called at the end of every step, before its effects are
   * carried out, so a lease lost or released in the step is known to the gate before anything the
   * step sends (a release's answer above all: its mark lets a successor write at once).
   */
  void publish() {
    if (gate == ReadGate.NONE) {
      return;
    }
    if (!servabilityChanged && ++publishesSkipped % FULL_CHECK_EVERY != 0) {
      return; // nothing that decides servability was written since the last publication
    }
    boolean expectChange = servabilityChanged;
    servabilityChanged = false;
    for (int i = 0; i < ranges.length; i++) {
      RangeLease r = ranges[i];
      boolean leaderOnly = r.leaderOnly && r.term > 0;
      if (leaderOnly && !wasLeaderOnly[i]) {
        modeEntries[i]++; // a new stretch of leader-only mode: values read before it are not ok
      }
      wasLeaderOnly[i] = leaderOnly;
      long until = leaderOnly ? r.leaseEndMonoNanos : Long.MIN_VALUE;
      if (until != publishedUntil[i] || r.term != publishedTerm[i]) {
        // Every write of term, lease end or leader-only mode marks a change; a difference found
        // without one is a write site that forgot to (the gate would have served on stale state).
        if (!expectChange) {
          throw new IllegalStateException(
              "range " + i + " changed servability without servabilityChanged(): " + r);
        }
        publishedUntil[i] = until;
        publishedTerm[i] = r.term;
        gate.range(i, r.term, modeEntries[i], until);
      }
    }
  }

  /** Marks that a range's term, lease end or leader-only mode was just written. */
  private void servabilityChanged() {
    servabilityChanged = true;
  }

  // ---- Inputs from the coordination service ---------------------------------------------------

  void granted(Now now, Input.TermGranted g, List<Effect> out) {
    RangeLease r = range(g.range());
    if (g.term() <= r.term) {
      return; // a duplicate or a late grant of a term this node already moved past
    }
    r.grant(now, g.term(), g.noEarlierLease());
    if (termFloors) {
      // Above every round this incarnation proposed so far, whatever the wall clock says: no ballot
      // of an earlier term of this node can look like one of this term's.
      r.floorRound = Math.max(Math.max(now.wallMicros(), 1), incarnation.highestBallotRound() + 1);
    }
    servabilityChanged();
    if (g.noEarlierLease() || skipLeaseWait) {
      sendTermPersist(now, g.range(), r, out);
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
    RangeLease r = range(release.range());
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
      servabilityChanged();
    }
    boolean clean = releaseBeforeWait || r.predecessorsEnded(now, successorWaitNanos);
    out.add(new Effect.LeaseReleased(release.range(), release.term(), clean));
  }

  void renewed(Now now, Input.LeaseRenewed renewal) {
    RangeLease r = range(renewal.range());
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
    servabilityChanged();
  }

  void candidacy(Input.Candidacy candidacy) {
    range(candidacy.range()).candidate = candidacy.candidate();
  }

  void lost(Now now, Input.LeaseLost lost) {
    RangeLease r = range(lost.range());
    r.leaseEndMonoNanos = Long.MIN_VALUE;
    r.lostAtMonoNanos = now.monoNanos();
    servabilityChanged();
  }

  // ---- Term persist -------------------------------------------------------------------------

  /**
   * Starts the term persist once the successor's wait is over; resends it after a timeout. Ticks
   * the scans, whose reads go to {@code reads}.
   */
  void tick(Now now, ScanReads reads, List<Effect> out) {
    if (!enabled()) {
      return;
    }
    for (int i = 0; i < ranges.length; i++) {
      RangeLease r = ranges[i];
      if (r.scan != null) {
        r.scan.tick(now, readsOf(r.scan, reads), out);
        finishScan(r);
      }
      if (r.term == 0 || r.givenUp()) {
        continue;
      }
      if (r.termPersisted) {
        // Only a re-persist at new voters can be open while the term is persisted: resend it.
        if (r.persistRound != null
            && now.monoNanos() - r.persistSentMonoNanos >= roundTimeoutNanos) {
          sendTermPersist(now, i, r, out);
        }
        continue;
      }
      if (r.persistRound == null) {
        if (r.predecessorsEnded(now, successorWaitNanos)) {
          sendTermPersist(now, i, r, out);
        }
      } else if (now.monoNanos() - r.persistSentMonoNanos >= roundTimeoutNanos) {
        sendTermPersist(now, i, r, out);
      }
    }
  }

  private void sendTermPersist(Now now, int range, RangeLease r, List<Effect> out) {
    if (placement.learners(range).contains(incarnation.nodeId())) {
      return; // a learner never holds a range: its term is never persisted, so it never leads
    }
    r.persistRound = incarnation.newRoundId();
    r.persistSentMonoNanos = now.monoNanos();
    r.persistAcks.clear();
    Key key = RangeTerm.cellKey(range);
    for (int to : placement.replicas(range)) {
      out.add(
          new Effect.Send(
              to,
              new Message.TermPersist(
                  key, r.persistRound, range, r.term, placement.ringVersion(), r.floorRound)));
    }
  }

  /**
   * A reply on a reserved range-term key: a term persist acknowledged or refused, or a listing for
   * the range's scan (whose reads go to {@code reads}).
   */
  void onTermReply(Now now, int from, Message.Reply reply, ScanReads reads, List<Effect> out) {
    int range = RangeTerm.rangeOf(reply.key());
    if (range < 0 || range >= ranges.length) {
      return; // not a range of this placement: nothing of ours to update
    }
    RangeLease r = ranges[range];
    if (reply instanceof Message.StaleTerm stale) {
      superseded(now, range, stale.term());
      return;
    }
    if (reply instanceof Message.KeysListed listed) {
      if (r.scan != null) {
        r.scan.onListed(now, from, listed, readsOf(r.scan, reads), out);
        finishScan(r);
      }
      return;
    }
    if (!(reply instanceof Message.TermPersisted ack)
        || r.persistRound == null
        || !reply.round().equals(r.persistRound)
        || ack.term() != r.term) {
      return; // late or for another term
    }
    r.persistAcks.add(from);
    hearPredecessor(r, ack.previous());
    int quorum = CoreConfig.quorum(placement.replicas(range).size());
    if (r.persistAcks.size() >= quorum && r.termPersisted) {
      r.persistRound = null; // a re-persist after a voter change: durable at the new voters too
      return;
    }
    if (r.persistAcks.size() >= quorum) {
      r.termPersisted = true;
      r.persistRound = null;
      if (!r.predecessorFixed) {
        // What this first quorum taught is all the scan may use: it classifies from its start.
        r.predecessorFixed = true;
        r.predecessor = r.predecessorConflict ? null : r.heardPredecessor;
      }
      if (skipRangeScan) {
        r.leaderOnly = true;
        servabilityChanged();
        return;
      }
      r.scan = new RangeScan(incarnation, roundTimeoutNanos, placement, range, r.term);
      r.scan.reportTo(scanProgress);
      if (pullWithoutRead) {
        r.scan.pullWithoutRead();
      }
      r.scan.start(now, out);
    }
  }

  /**
   * A persist reply's previous record: kept if it is of term − 1 (any other teaches nothing); two
   * that differ make it unknown (one holder and one floor per term: a bug or a forgery).
   */
  private static void hearPredecessor(RangeLease r, TermRecord previous) {
    if (previous == null || previous.term() != r.term - 1 || r.predecessorFixed) {
      return;
    }
    if (r.heardPredecessor == null) {
      r.heardPredecessor = previous;
    } else if (!r.heardPredecessor.equals(previous)) {
      r.predecessorConflict = true;
    }
  }

  // ---- Term floors and coverage (docs/PROTOCOL.md "A killed holder: covering its term") -------

  /**
   * The floor of this node's ballots for {@code key} in term {@code term}: the term's floor if it
   * is this node's current term of the key's range, else 0 (a message of an older term, refused).
   */
  long floorFor(Key key, long term) {
    RangeLease r = ranges[rangeOf(key)];
    return term != 0 && r.term == term ? r.floorRound : 0;
  }

  /**
   * The predecessor record this node's current, not given-up term of {@code key}'s range learned
   * from its persist quorum; null if none (or no such term).
   */
  TermRecord predecessorOf(Key key) {
    RangeLease r = ranges[rangeOf(key)];
    return r.term == 0 || r.givenUp() ? null : r.predecessor;
  }

  /**
   * The term a shipment of {@code term} of {@code range} covers: {@code term − 1} if this term's
   * scan completed with the predecessor's record known, no key skipped and the ring unchanged; else
   * 0. Checked here, kept on: a covering shipment without those is a bug.
   */
  long coveredTerm(int range, long term) {
    RangeLease r = range(range);
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
    return range(range).term;
  }

  /** Whether this node still holds {@code term} of {@code range} and has not given it up. */
  boolean stillHolds(int range, long term) {
    RangeLease r = range(range);
    return enabled() && r.term == term && !r.givenUp();
  }

  /** Whether {@code range} is in leader-only mode in {@code term}. */
  boolean leaderOnlyIn(int range, long term) {
    RangeLease r = range(range);
    return r.term == term && r.leaderOnly;
  }

  /**
   * Whether this node holds {@code term} of {@code range} persisted at {@code q} replicas, not
   * given up and not yet in leader-only mode: the point where a scan (or an import) decides.
   */
  boolean awaitsLeaderOnly(int range, long term) {
    RangeLease r = range(range);
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
    RangeLease r = range(range);
    r.leaderOnly = true;
    r.scan = null;
    servabilityChanged();
    entries.add(new long[] {range, term});
    return true;
  }

  /**
   * The ranges that entered leader-only mode (by a scan that read every key, or by an import) since
   * the last call, each as {range, term}: where an entry base starts (docs/PROTOCOL.md "A killed
   * holder: covering its term", step 3). Only with hand-offs on.
   */
  List<long[]> takeEntries() {
    if (entries.isEmpty()) {
      return List.of();
    }
    List<long[]> taken = new java.util.ArrayList<>(entries);
    entries.clear();
    return taken;
  }

  /** Leader-only mode once the term's scan read every page (rule 5). */
  private void finishScan(RangeLease r) {
    if (r.scan != null && r.scan.finished()) {
      assert r.termPersisted && r.scan.term == r.term : "a scan outlived its term: " + r;
      r.leaderOnly = true;
      servabilityChanged();
      r.covers =
          r.predecessorFixed
              && r.predecessor != null
              && !r.ringChanged
              && r.scan.keysSkipped() == 0;
      if (termFloors && r.scan.keysSkipped() == 0) {
        // A key the scan gave up on may lack a chosen value here: no entry base then.
        entries.add(new long[] {r.scan.range, r.term});
      }
      r.scan = null;
      scansCompleted++;
    }
  }

  // ---- The scans' reads ------------------------------------------------------------------------

  /**
   * {@code scan}'s reads: each gets a fresh negative request id, remembered as the scan's so its
   * outcome finds the scan again ({@link #scanReadDone}), and is submitted through {@code via}.
   */
  private RangeScan.Reads readsOf(RangeScan scan, ScanReads via) {
    return (now, key, out) -> {
      long id = nextReadId--;
      scanReads.put(id, scan);
      via.submit(now, new Input.ClientRequest(id, new Operation.Get(key), now.wallMicros()), out);
      return id;
    };
  }

  /**
   * An internal read of a scan ended (request id {@code id} < 0); further reads of the scan go to
   * {@code reads}.
   */
  void scanReadDone(Now now, long id, Outcome outcome, ScanReads reads, List<Effect> out) {
    RangeScan scan = scanReads.remove(id);
    if (scan == null) {
      throw new IllegalStateException("no scan read " + id);
    }
    RangeLease r = ranges[scan.range];
    if (r.scan != scan) {
      return; // the scan was abandoned with its term
    }
    scan.onRead(now, id, outcome, readsOf(scan, reads), out);
    finishScan(r);
  }

  /** Scans that completed (diagnostics and tests). */
  long scansCompleted() {
    return scansCompleted;
  }

  /** A replica persisted {@code term} for {@code key}'s range: if above ours, our term is over. */
  void superseded(Now now, Key key, long term) {
    superseded(now, rangeOf(key), term);
  }

  private void superseded(Now now, int range, long term) {
    RangeLease r = range(range);
    if (term > r.term) {
      r.endTerm(now);
      servabilityChanged();
    }
  }

  /**
   * The placement is now {@code change.next()}. A range whose replica set is unchanged keeps its
   * term, lease, scan and leader-only mode. A range in leader-only mode whose voters gained or lost
   * exactly one node, this node still among them, with its term durable at a quorum of the voters
   * it had until now, keeps them too ({@link #keepsLeaderOnly}) and persists the term again at the
   * new voters (docs/PROTOCOL.md "A voter change in leader-only mode"). Any other range whose set
   * changed loses them as on a lost lease ({@link RangeLease#replicaSetChanged}); its term persist
   * and scan start again, at the new set, from the next tick. Reads of a dropped scan still running
   * are ignored when they end.
   */
  void placementChanged(Now now, PlacementChange change, List<Effect> out) {
    Placement before = placement;
    placement = change.next();
    for (int i = 0; i < ranges.length; i++) {
      if (!change.replicasChanged(i)) {
        continue;
      }
      RangeLease r = ranges[i];
      if (keepsLeaderOnly(now, r, before.replicas(i), placement.replicas(i))) {
        r.ringChanged = true; // a settle may re-commit under its own ballot: coverage ends here
        r.covers = false;
        keptLeaderOnly++;
        if (!PlacementChange.oneVoterApart(before.replicas(i), placement.replicas(i))) {
          keptAcrossMoreThanOne++; // only under KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE
        }
        if (!keepWithoutRePersist) {
          // termPersisted stays: a quorum of an adjacent set has it
          sendTermPersist(now, i, r, out);
        }
      } else {
        r.replicaSetChanged(now);
        servabilityChanged();
      }
    }
  }

  /**
   * Whether range lease {@code r} may stay in leader-only mode as its voters go from {@code from}
   * to {@code to}: it is in that mode under a live lease, its term was persisted at a quorum of
   * {@code from} (no re-persist of an earlier change still open), and {@code to} is {@code from}
   * with one node added or removed, this node still a voter. Then every quorum of {@code to} meets
   * the quorum that holds the term, so no round of an older term can complete at either set, and no
   * value is chosen in the range but by this holder's own rounds, which it tracks: the scan's
   * result stands (docs/PROTOCOL.md "A voter change in leader-only mode").
   */
  private boolean keepsLeaderOnly(Now now, RangeLease r, List<Integer> from, List<Integer> to) {
    return r.leaderOnly
        && r.termPersisted
        && r.persistRound == null
        && !r.givenUp()
        && r.holdsLease(now)
        && to.contains(incarnation.nodeId())
        && (PlacementChange.oneVoterApart(from, to) || keepAcrossAnyVoterChange);
  }

  /**
   * Voter changes through which a range kept leader-only mode ({@link #keepsLeaderOnly}); tests
   * count them to show a sabotage of the rule's limits was exercised.
   */
  long keptLeaderOnly() {
    return keptLeaderOnly;
  }

  /** Of {@link #keptLeaderOnly}, the changes of more than one voter (a sabotage's only). */
  long keptAcrossMoreThanOne() {
    return keptAcrossMoreThanOne;
  }

  private RangeLease range(int range) {
    if (range < 0 || range >= ranges.length) {
      throw new IllegalArgumentException(
          "no range " + range + " (configured: " + ranges.length + ")");
    }
    return ranges[range];
  }

  @Override
  public String toString() {
    return java.util.Arrays.toString(ranges);
  }
}
