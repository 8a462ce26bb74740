package io.frsm.consensus.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settles a membership change asks for (docs/PROTOCOL.md "Membership changes", rule b): {@link
 * Input.SettleRange} lists range r's keys at a quorum of the installed version's voters (listings
 * of a version the replica installed, after its barrier: {@link Message.ListKeys#settle}) and reads
 * each key as a <em>settle read</em> ({@link GetRun}) until its newest value is held with one
 * accepted triple by a quorum of the voters; then {@link Effect.RangeSettled}. The listing and the
 * paging are {@link RangeScan}'s, with no term.
 *
 * <p>Settle reads run as the coordinator's runs under request ids of their own: from {@link
 * Long#MIN_VALUE} upward, below {@link #READ_ID_CEILING}; a lease scan's reads count down from -1.
 *
 * <p>A settle belongs to one ring version: a newer placement abandons it ({@code settled ==
 * false}); reads of an abandoned settle still running are ignored when they end.
 */
final class RangeSettles {
  /** Settle reads use ids below this; lease scans' reads count down from -1 and never reach it. */
  static final long READ_ID_CEILING = Long.MIN_VALUE / 2;

  private final Incarnation incarnation;
  private final long roundTimeoutNanos;
  private final SettlePace pace;
  private final CoreCounters counters;
  private Placement placement;

  /** Insertion-ordered so ticks visit settles in a reproducible order. */
  private final Map<Integer, RangeScan> byRange = new LinkedHashMap<>();

  private final Map<Long, RangeScan> reads = new HashMap<>();
  private long nextReadId = Long.MIN_VALUE;
  private long settled;

  RangeSettles(Incarnation incarnation, long roundTimeoutNanos, Placement placement) {
    this(incarnation, roundTimeoutNanos, placement, new SettlePace(0), new CoreCounters());
  }

  /**
   * {@code pace}: shared by every settle of this core (its reads start no faster); {@code
   * counters}: where the reads read again are counted.
   */
  RangeSettles(
      Incarnation incarnation,
      long roundTimeoutNanos,
      Placement placement,
      SettlePace pace,
      CoreCounters counters) {
    this.incarnation = incarnation;
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.placement = placement;
    this.pace = pace;
    this.counters = counters;
  }

  static boolean isSettleRead(long requestId) {
    return requestId < READ_ID_CEILING;
  }

  /** Whether a settle runs, or reads of an abandoned one may still answer. */
  boolean busy() {
    return !byRange.isEmpty() || !reads.isEmpty();
  }

  /** Settles completed (diagnostics and tests). */
  long settled() {
    return settled;
  }

  /**
   * @throws IllegalArgumentException if the range is not one of the placement's (a driver bug)
   */
  void settle(Now now, Input.SettleRange request, LeaseState.ScanReads via, List<Effect> out) {
    int range = request.range();
    placement.replicas(range);
    if (request.ringVersion() != placement.ringVersion()) {
      out.add(new Effect.RangeSettled(range, request.ringVersion(), false));
      return;
    }
    if (byRange.containsKey(range)) {
      return; // already settling at this version: its answer comes once
    }
    RangeScan scan = new RangeScan(incarnation, roundTimeoutNanos, placement, range, 0);
    if (pace.paced()) {
      scan.pacedBy(pace);
    }
    byRange.put(range, scan);
    scan.start(now, out);
  }

  /** Whether {@code reply} (on a reserved range key) answers one of the settles' listings. */
  boolean owns(Message.Reply reply) {
    for (RangeScan scan : byRange.values()) {
      if (scan.listing(reply.round())) {
        return true;
      }
    }
    return false;
  }

  void onListed(
      Now now, int from, Message.KeysListed listed, LeaseState.ScanReads via, List<Effect> out) {
    for (RangeScan scan : new ArrayList<>(byRange.values())) {
      if (scan.listing(listed.round())) {
        scan.onListed(now, from, listed, readsOf(scan, via), out);
        finishIfDone(scan, out);
        return;
      }
    }
  }

  /** A settle read ended (request id {@code id}); further reads go to {@code via}. */
  void readDone(Now now, long id, Outcome outcome, LeaseState.ScanReads via, List<Effect> out) {
    RangeScan scan = reads.remove(id);
    if (scan == null) {
      throw new IllegalStateException("no settle read " + id);
    }
    if (byRange.get(scan.range) != scan) {
      return; // abandoned with its version
    }
    if (!(outcome instanceof Outcome.ReadResult)) {
      counters.settleReadRetried(); // a settle never skips a key: the scan reads it again
    }
    scan.onRead(now, id, outcome, readsOf(scan, via), out);
    finishIfDone(scan, out);
  }

  void tick(Now now, LeaseState.ScanReads via, List<Effect> out) {
    for (RangeScan scan : new ArrayList<>(byRange.values())) {
      scan.tick(now, readsOf(scan, via), out);
      finishIfDone(scan, out);
    }
  }

  /** A newer ring version: every settle of the old one is abandoned and answered so. */
  void placementChanged(PlacementChange change, List<Effect> out) {
    for (RangeScan scan : byRange.values()) {
      out.add(new Effect.RangeSettled(scan.range, scan.ringVersion, false));
    }
    byRange.clear();
    placement = change.next();
  }

  private void finishIfDone(RangeScan scan, List<Effect> out) {
    if (scan.finished() && byRange.remove(scan.range, scan)) {
      settled++;
      out.add(new Effect.RangeSettled(scan.range, scan.ringVersion, true));
    }
  }

  private RangeScan.Reads readsOf(RangeScan scan, LeaseState.ScanReads via) {
    return (now, key, out) -> {
      long id = nextReadId++;
      if (!isSettleRead(id)) {
        throw new IllegalStateException("settle read ids exhausted"); // 2^62 reads: never
      }
      reads.put(id, scan);
      via.submit(now, new Input.ClientRequest(id, new Operation.Get(key), now.wallMicros()), out);
      return id;
    };
  }
}
