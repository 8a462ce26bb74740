package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.List;

/**
 * Rule 5 of docs/DESIGN.md "Lease invariant": how a range enters leader-only mode in a term. Once
 * the term is durable at {@code q} replicas, a {@link RangeScan} settles every key of the range;
 * when it has read every page the range is in leader-only mode. A key an operation asks for while
 * the scan runs is pulled forward (docs/PROTOCOL.md "Hot keys first"). An imported hand-off enters
 * the mode instead of the scan (docs/PROTOCOL.md "Hand-off instead of a scan"). Each entry is kept
 * for the entry bases ({@link #takeEntries}).
 *
 * <p>A scan's quorum reads run as the coordinator's runs: the calls that may start them take a
 * {@link LeaseState.ScanReads} to submit them through, so this class holds no reference to the
 * coordinator. Each read gets a negative request id, remembered as its scan's; a read of an
 * abandoned scan is ignored when it ends.
 */
final class LeaderOnlyScans {
  private final RangeLeases leases;
  private final ServabilityPublication publication;
  private final Incarnation incarnation;
  private final long roundTimeoutNanos;
  private final boolean skipRangeScan;
  private final boolean pullWithoutRead;
  private final boolean hotKeysFirst;

  /** Hand-offs on: entries into leader-only mode are kept for the entry bases. */
  private final boolean termFloors;

  private final RangeScan.Progress scanProgress;

  /** Where the scans' per-key outcomes go (the core's leader-only reads); none until told. */
  private RangeScan.Progress keyOutcomes = RangeScan.Progress.NONE;

  /** Entries into leader-only mode not yet taken ({@link #takeEntries}). */
  private final List<long[]> entries = new java.util.ArrayList<>();

  /** The scan each internal read belongs to; a read of an abandoned scan is ignored. */
  private final java.util.Map<Long, RangeScan> scanReads = new java.util.HashMap<>();

  private long nextReadId = -1;
  private long scansCompleted;

  LeaderOnlyScans(
      CoreConfig config,
      RangeLeases leases,
      ServabilityPublication publication,
      Incarnation incarnation,
      long roundTimeoutNanos,
      CoreCounters counters,
      boolean termFloors) {
    this.leases = leases;
    this.publication = publication;
    this.incarnation = incarnation;
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.skipRangeScan = config.broken(Sabotage.SKIP_RANGE_SCAN);
    this.pullWithoutRead = config.broken(Sabotage.PULL_FORWARD_WITHOUT_READ);
    this.hotKeysFirst = config.modes().hotKeysFirst();
    this.termFloors = termFloors;
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
  }

  /** From now on each scan's reads that answered and keys it left unread go to {@code to}. */
  void reportScannedKeysTo(RangeScan.Progress to) {
    this.keyOutcomes = java.util.Objects.requireNonNull(to);
  }

  /**
   * {@code range}'s term just became durable at {@code q} replicas: its scan starts (or, under
   * {@link Sabotage#SKIP_RANGE_SCAN}, leader-only mode without one).
   */
  void start(Now now, int range, RangeLease r, List<Effect> out) {
    if (skipRangeScan) {
      r.leaderOnly = true;
      publication.servabilityChanged();
      return;
    }
    r.scan = new RangeScan(incarnation, roundTimeoutNanos, leases.placement(), range, r.term);
    r.scan.reportTo(scanProgress);
    if (pullWithoutRead) {
      r.scan.pullWithoutRead();
    }
    r.scan.start(now, out);
  }

  /**
   * Range lease {@code r}'s part of a tick: its scan, if any, ticks (its reads go to {@code
   * reads}).
   */
  void tick(Now now, RangeLease r, LeaseState.ScanReads reads, List<Effect> out) {
    if (r.scan != null) {
      r.scan.tick(now, readsOf(r.scan, reads), out);
      finishScan(r);
    }
  }

  /** A listing for {@code r}'s scan, if one runs; further reads go to {@code reads}. */
  void onListed(
      Now now,
      int from,
      RangeLease r,
      Message.KeysListed listed,
      LeaseState.ScanReads reads,
      List<Effect> out) {
    if (r.scan != null) {
      r.scan.onListed(now, from, listed, readsOf(r.scan, reads), out);
      finishScan(r);
    }
  }

  /**
   * An operation arrived for {@code key}: if its range is being scanned in this node's term and the
   * scan has not settled the key, the key is pulled forward ({@link RangeScan#pull}): its scan read
   * is queued now, ahead of the operation, through {@code reads}. Does nothing otherwise (no scan,
   * no lease, the scan's pull bounds reached, hot keys first off).
   */
  void pullForward(Now now, Key key, LeaseState.ScanReads reads, List<Effect> out) {
    if (!hotKeysFirst) {
      return;
    }
    RangeLease r = leases.of(key);
    if (r.scan != null && r.termPersisted && !r.leaderOnly && r.holdsLease(now)) {
      r.scan.pull(now, key, readsOf(r.scan, reads), out);
    }
  }

  /**
   * Leader-only mode in {@code term} from an imported hand-off instead of the scan
   * (docs/PROTOCOL.md "Hand-off instead of a scan"); the scan, if it started, is dropped. The
   * caller checked that the range awaits leader-only mode in {@code term}.
   */
  void enterByHandOff(int range, long term) {
    RangeLease r = leases.of(range);
    r.leaderOnly = true;
    r.scan = null;
    publication.servabilityChanged();
    entries.add(new long[] {range, term});
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
      publication.servabilityChanged();
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

  /**
   * {@code scan}'s reads: each gets a fresh negative request id, remembered as the scan's so its
   * outcome finds the scan again ({@link #scanReadDone}), and is submitted through {@code via}.
   */
  private RangeScan.Reads readsOf(RangeScan scan, LeaseState.ScanReads via) {
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
  void scanReadDone(
      Now now, long id, Outcome outcome, LeaseState.ScanReads reads, List<Effect> out) {
    RangeScan scan = scanReads.remove(id);
    if (scan == null) {
      throw new IllegalStateException("no scan read " + id);
    }
    RangeLease r = leases.at(scan.range);
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
}
