package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The holder side of hand-off instead of a scan (docs/PROTOCOL.md "Hand-off instead of a scan"),
 * with {@link CoreConfig.Modes#handOff} on: drain a range, then ship what its term wrote. The
 * successor's side is {@link HandOffBases} and {@link HandOffImports}.
 *
 * <p>Every key this node sends an accept for in its current term of a range joins the range's
 * written keys ({@link WrittenKeys}). {@link Input.HandOff} starts a <em>drain</em>: client
 * operations on the range are refused as moved, and every written key that may still be open
 * ({@link LeaderReads#drainMustSettle}: an open accept, or no chosen value in the local cell) is
 * settled — a settle read ({@link GetRun}: a fresh prepare at a quorum, then M re-committed with
 * logged accepts) queued behind the key's running operation, so it runs after the key's rounds
 * finished; a key that gets another accept meanwhile is settled again. Once every written key's
 * local cell holds a chosen value (or nothing chosen, for ⊥, after a settle), and no value the node
 * learned chosen for the range is still on its way to its cell, the holder ships them ({@link
 * Effect.HandOffShipped}) and ends its term in the same step, as a release does: it coordinates
 * nothing in the range again under that term.
 */
final class HandOffDrains {
  /** Hand-off settle reads count down from here (settle read ids, see {@link RangeSettles}). */
  static final long READ_ID_TOP = RangeSettles.READ_ID_CEILING - 1;

  private static final long READ_ID_FLOOR = RangeSettles.READ_ID_CEILING - (1L << 60);

  /** Settle reads of one drain in flight at once. */
  static final int READS_IN_FLIGHT = 32;

  private final boolean enabled;
  private final boolean shipBeforeRecommit;
  private final int maxKeys;
  private final long roundTimeoutNanos;
  private final CellStore store;

  private final WrittenKeys written = new WrittenKeys();

  /** Key-ordered so ticks visit drains in a reproducible order. */
  private final Map<Integer, RangeDrain> drains = new TreeMap<>();

  private final Map<Long, RangeDrain> reads = new HashMap<>();
  private long nextReadId = READ_ID_TOP;

  private long shipped;
  private long declined;

  HandOffDrains(CoreConfig config, long roundTimeoutNanos, CellStore store) {
    this.enabled = enabled(config);
    this.shipBeforeRecommit = config.broken(Sabotage.SHIP_BEFORE_RECOMMIT);
    this.maxKeys = config.modes().handOffMaxKeys();
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.store = store;
  }

  /**
   * Whether hand-offs run under {@code config}: with {@link CoreConfig.Modes#handOff} and leases.
   */
  static boolean enabled(CoreConfig config) {
    return config.modes().handOff() && config.leases().enabled();
  }

  boolean enabled() {
    return enabled;
  }

  static boolean ownsRead(long requestId) {
    return requestId <= READ_ID_TOP && requestId > READ_ID_FLOOR;
  }

  /**
   * The keys the drain of {@code range}'s term {@code term} began with, or -1 if no such drain runs
   * (declined, never begun, shipped or dropped).
   */
  int drainKeys(int range, long term) {
    RangeDrain d = drains.get(range);
    return d == null || d.term != term ? -1 : d.startKeys;
  }

  /** Whether client operations on {@code range} are refused: its hand-off is draining. */
  boolean refuses(int range) {
    return drains.containsKey(range);
  }

  /** This node sent an accept for {@code key} under term {@code term} of {@code range}. */
  void acceptSent(Key key, int range, long term, long requestId) {
    if (!enabled || term == 0) {
      return;
    }
    written.accepted(key, range, term);
    RangeDrain d = drains.get(range);
    if (d != null && d.term == term && !ownsRead(requestId)) {
      d.needsSettle(key); // a round that started before the drain still sends: settle it after
    }
  }

  /** See {@link WrittenKeys#classified}. */
  void classified(Key key, int range, long term) {
    if (!enabled || term == 0) {
      return;
    }
    written.classified(key, range, term);
  }

  /** See {@link WrittenKeys#predecessorKeysKept}. */
  boolean predecessorKeysKept(int range, long term) {
    return written.predecessorKeysKept(range, term);
  }

  /** See {@link WrittenKeys#classified()}. */
  long classified() {
    return written.classified();
  }

  /**
   * What {@link Input.HandOff} of {@code range}'s term {@code term} (the caller checked this node
   * holds it) would do: {@code declinedKeys} ≥ 0 if it declines, else the written keys its drain
   * settles ({@code toSettle}). A drain settles a written key only if {@code mustSettle} says so
   * ({@link LeaderReads#drainMustSettle}: an open accept, or no chosen value in the local cell);
   * every other written key ships its local chosen value as it is (docs/PROTOCOL.md "Settle only
   * what may be open").
   *
   * @param declinedKeys -1: drain; else how many keys made it decline — the keys to settle if more
   *     than {@link CoreConfig.Modes#handOffMaxKeys} or this hand-off's cap, whichever is lower;
   *     the written keys if more than {@link #MAX_SHIPPED_KEYS}; beyond {@link WrittenKeys#MAX}
   *     that + 1
   */
  record Plan(int declinedKeys, java.util.SortedSet<Key> toSettle) {
    static final Plan NOTHING = new Plan(-1, java.util.Collections.emptySortedSet());
  }

  /**
   * The most written keys of one range and term a drain ships (each read from the local cell in one
   * core step, then sent in one shipment): about 0.1–0.3 s of local reads and 9 MB of 512-byte
   * values. A term that wrote more declines and its successor scans.
   */
  static final int MAX_SHIPPED_KEYS = 1 << 14;

  /**
   * Plans {@code range}'s hand-off (see {@link Plan}); null if hand-offs are off or the range
   * drains already. Declining changes nothing but a count: the range keeps taking operations and
   * the agent releases plainly, today's path without hand-off.
   */
  Plan plan(int range, long term, int cap, Predicate<Key> mustSettle) {
    if (!enabled || drains.containsKey(range)) {
      return null;
    }
    WrittenKeys.Written w = written.get(range);
    if (w == null || w.term != term) {
      return Plan.NOTHING; // wrote nothing in the term: an empty shipment ends it
    }
    if (w.overflow) {
      declined++;
      return new Plan(WrittenKeys.MAX + 1, null);
    }
    if (w.keys.size() > MAX_SHIPPED_KEYS) {
      declined++;
      return new Plan(w.keys.size(), null);
    }
    TreeSet<Key> toSettle = new TreeSet<>();
    for (Key key : w.keys) {
      if (mustSettle.test(key)) {
        toSettle.add(key);
      }
    }
    if (toSettle.size() > Math.min(maxKeys, cap)) {
      declined++;
      return new Plan(toSettle.size(), null);
    }
    return new Plan(-1, java.util.Collections.unmodifiableSortedSet(toSettle));
  }

  /**
   * {@link Input.HandOff}: starts draining {@code range} if this node holds its term {@code term}
   * (the caller checked) by {@code plan}, which did not decline. With {@link
   * Sabotage#SHIP_BEFORE_RECOMMIT} it returns a shipment made at once, else null.
   */
  HandOffShipment begin(
      Now now, int range, long term, Plan plan, LeaseState.ScanReads via, List<Effect> out) {
    if (!enabled || drains.containsKey(range) || plan.declinedKeys() >= 0) {
      throw new IllegalStateException("range " + range + " cannot drain by " + plan);
    }
    WrittenKeys.Written w = written.get(range);
    RangeDrain d = new RangeDrain(range, term);
    d.toSettle.addAll(plan.toSettle());
    d.startKeys = d.toSettle.size();
    if (shipBeforeRecommit) {
      // The broken rule: no settle reads, no waiting for the rounds in flight; each written key
      // ships its newest local value as if it were chosen.
      List<HandOffShipment.Entry> entries = new ArrayList<>();
      for (Key key : w != null && w.term == term ? w.shipped() : d.toSettle) {
        AcceptedValue a = store.accepted(key);
        entries.add(new HandOffShipment.Entry(key, a == null ? null : a.withChosen(true)));
      }
      return ship(d, entries);
    }
    drains.put(range, d);
    pump(now, d, via, out);
    return null;
  }

  /**
   * A hand-off settle read ended: a key accepted again meanwhile is settled again, a failed read
   * retried after a round timeout. The shipment is made by {@link #tick}: the settled values reach
   * the local cell through commits to itself, after this step.
   */
  void readDone(Now now, long id, Outcome outcome, LeaseState.ScanReads via, List<Effect> out) {
    RangeDrain d = reads.remove(id);
    if (d == null || drains.get(d.range) != d) {
      return; // the drain was abandoned
    }
    Key key = d.reading.remove(id);
    d.readingKeys.remove(key);
    if (d.acceptedWhileReading.remove(key)) {
      d.toSettle.add(key);
    } else if (!(outcome instanceof Outcome.ReadResult)) {
      if (d.failed.isEmpty()) {
        d.retryAtNanos = now.monoNanos() + roundTimeoutNanos;
      }
      d.failed.add(key);
    }
    pump(now, d, via, out);
  }

  /**
   * Retries failed settle reads, drops drains whose term is over, and ships each drain that is
   * done: no settle pending, no key of the range catching up ({@code catchingUp}), every written
   * key's local cell chosen (or ⊥). Returns the shipments made.
   */
  List<HandOffShipment> tick(
      Now now,
      LeaseState leases,
      java.util.function.IntPredicate catchingUp,
      LeaseState.ScanReads via,
      List<Effect> out) {
    List<HandOffShipment> made = List.of();
    for (var it = drains.values().iterator(); it.hasNext(); ) {
      RangeDrain d = it.next();
      if (!leases.stillHolds(d.range, d.term)) {
        it.remove(); // the term ended (released, superseded, re-granted): nothing to ship
        continue;
      }
      if (!d.failed.isEmpty() && now.monoNanos() - d.retryAtNanos >= 0) {
        d.toSettle.addAll(d.failed);
        d.failed.clear();
      }
      pump(now, d, via, out);
      if (!d.quiet() || catchingUp.test(d.range)) {
        // Settles pending; or a value this node learned chosen (a scan read's, its own round's)
        // is still on its way to its cell: the base it records at the shipment must include it.
        continue;
      }
      List<HandOffShipment.Entry> entries = settledEntries(now, d);
      if (entries == null) {
        continue; // some local cell still waits for its commit, or is re-settled
      }
      it.remove();
      if (made.isEmpty()) {
        made = new ArrayList<>();
      }
      made.add(ship(d, entries));
    }
    return made;
  }

  /**
   * Each written key with its local cell's value, if every one is chosen (or holds nothing
   * chosen-able: ⊥); else null, and the keys whose local cell is not chosen yet are settled again
   * after a round timeout (a commit to itself lost, or ⊥ at the settle's quorum with a leftover
   * accept here).
   */
  private List<HandOffShipment.Entry> settledEntries(Now now, RangeDrain d) {
    WrittenKeys.Written w = written.get(d.range);
    if (w == null || w.term != d.term) {
      return List.of();
    }
    TreeSet<Key> shipped = w.shipped();
    List<HandOffShipment.Entry> entries = new ArrayList<>(shipped.size());
    List<Key> notYet = new ArrayList<>();
    for (Key key : shipped) {
      AcceptedValue a;
      try {
        a = store.accepted(key);
      } catch (CellStoreException unreadable) {
        notYet.add(key);
        continue;
      }
      if (a == null || a.chosen()) {
        entries.add(new HandOffShipment.Entry(key, a));
      } else {
        notYet.add(key);
      }
    }
    if (notYet.isEmpty()) {
      return entries;
    }
    d.failed.addAll(notYet);
    d.retryAtNanos = now.monoNanos() + roundTimeoutNanos;
    return null;
  }

  private HandOffShipment ship(RangeDrain d, List<HandOffShipment.Entry> entries) {
    shipped++;
    return new HandOffShipment(d.range, d.term, entries);
  }

  private void pump(Now now, RangeDrain d, LeaseState.ScanReads via, List<Effect> out) {
    while (d.reading.size() < READS_IN_FLIGHT && !d.toSettle.isEmpty()) {
      Key key = d.toSettle.pollFirst();
      long id = nextReadId--;
      if (!ownsRead(id)) {
        throw new IllegalStateException("hand-off read ids exhausted"); // 2^60 reads: never
      }
      d.reading.put(id, key);
      d.readingKeys.add(key);
      reads.put(id, d);
      via.submit(now, new Input.ClientRequest(id, new Operation.Get(key), now.wallMicros()), out);
    }
  }

  /**
   * A range whose replica set changed: its drain stops (reads of it still running are ignored when
   * they end) and its written keys are forgotten.
   */
  void placementChanged(PlacementChange change) {
    for (int i : change.rangesWithReplicasChanged()) {
      drains.remove(i);
      written.remove(i);
    }
  }

  long shipped() {
    return shipped;
  }

  long declined() {
    return declined;
  }
}
