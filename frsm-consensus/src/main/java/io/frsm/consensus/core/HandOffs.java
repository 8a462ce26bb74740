package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Hand-off instead of a scan (docs/PROTOCOL.md "Hand-off instead of a scan"), both sides, with
 * {@link CoreConfig.Modes#handOff} on.
 *
 * <p>The holder side: every key this node sends an accept for in its current term of a range joins
 * the range's <em>written keys</em> (the simulator's stand-in for the term's segregated SSTables).
 * {@link Input.HandOff} starts a <em>drain</em>: client operations on the range are refused as
 * moved, and every written key is settled — a settle read ({@link GetRun}: a fresh prepare at a
 * quorum, then M re-committed with logged accepts) queued behind the key's running operation, so it
 * runs after the key's rounds finished; a key that gets another accept meanwhile is settled again.
 * Once every written key is settled and its local cell holds the settled value chosen (or nothing
 * chosen, for ⊥), and no value the node learned chosen for the range is still on its way to its
 * cell, the holder ships them ({@link Effect.HandOffShipped}) and ends its term in the same step,
 * as a release does: it coordinates nothing in the range again under that term. A node that ships a
 * term it served in leader-only mode remembers that its own cells of the range hold every value
 * chosen up to that term: its <em>base</em>.
 *
 * <p>The importer side: {@link Input.ImportShipment} of term {@code t} is taken only by a node
 * whose base is {@code t − 1} (it shipped {@code t − 1} itself; no term in between); each shipped
 * value is merged into its cells as a commit. Once those are visible and the node holds term {@code
 * t + 1} persisted at a quorum, the range enters leader-only mode without a scan. Anything else (no
 * base, a term in between, a shipment missing or refused) leaves the scan to run as before.
 *
 * <p>The base and the imports live in memory; the base is also made durable by the driver ({@link
 * Effect.BaseReached}: flush the range, then write a record) and fed back at start ({@link
 * Input.RestoreBase}), so a node that restarted after its shipment can still import. The record is
 * dropped ({@link Effect.BaseDropped}) at this node's next grant of the range, whatever it brings:
 * from then on the node may write the range itself, which the record's premise excludes.
 *
 * <p>A killed holder (docs/PROTOCOL.md "A killed holder: covering its term", steps 3–4): after the
 * range enters leader-only mode in this node's term {@code t} and the values its scan learned are
 * in its cells, the node holds an <em>entry base</em> of {@code t} — its cells hold every value
 * chosen before {@code t} — kept durable the same way ({@link Effect.BaseReached} with {@code
 * entry}). It lets the node import only a shipment of {@code t + 1} that covers {@code t} (names
 * every key chosen in {@code t}) under an unchanged ring: so a holder killed in {@code t}, whose
 * cells may lack values chosen in {@code t} without its acceptor, can still return without a scan.
 */
final class HandOffs {
  /** Hand-off settle reads count down from here (settle read ids, see {@link RangeSettles}). */
  static final long READ_ID_TOP = RangeSettles.READ_ID_CEILING - 1;

  private static final long READ_ID_FLOOR = RangeSettles.READ_ID_CEILING - (1L << 60);

  /** Settle reads of one drain in flight at once. */
  static final int READS_IN_FLIGHT = 32;

  /**
   * Written keys remembered per range and term at most; a term that wrote more cannot be handed off
   * (its successor scans).
   */
  static final int WRITTEN_KEYS_MAX = CoreConfig.Modes.HAND_OFF_KEYS_LIMIT;

  /** The keys this node sent accepts for in its term {@code term} of one range. */
  private static final class Written {
    long term;
    boolean overflow;
    final TreeSet<Key> keys = new TreeSet<>();

    /**
     * Keys whose values this node saw under a ballot of its predecessor's term, not written by it
     * (docs/PROTOCOL.md "A killed holder: covering its term"): shipped with their local chosen
     * value, settled only if that is not chosen, and not counted against the drain's cap (its scan
     * read settled them already).
     */
    final TreeSet<Key> predecessorKeys = new TreeSet<>();

    /** More predecessor keys than remembered: a shipment of the term covers nothing. */
    boolean predecessorOverflow;

    void reset(long newTerm) {
      term = newTerm;
      overflow = false;
      keys.clear();
      predecessorKeys.clear();
      predecessorOverflow = false;
    }

    /** The keys a shipment names: written or of the predecessor's term, in key order. */
    TreeSet<Key> shipped() {
      TreeSet<Key> all = new TreeSet<>(keys);
      all.addAll(predecessorKeys);
      return all;
    }
  }

  /** One range's drain: settle every written key, then ship. */
  private static final class Drain {
    final int range;
    final long term;
    final TreeSet<Key> toSettle = new TreeSet<>();
    final Map<Long, Key> reading = new HashMap<>();
    final Set<Key> readingKeys = new HashSet<>();

    /** Keys that got an accept while their settle read ran: settled again when it answers. */
    final Set<Key> acceptedWhileReading = new HashSet<>();

    final List<Key> failed = new ArrayList<>();
    long retryAtNanos;

    /** The written keys the drain began with: what the agent's drain budget counts. */
    int startKeys;

    Drain(int range, long term) {
      this.range = range;
      this.term = term;
    }

    void needsSettle(Key key) {
      if (readingKeys.contains(key)) {
        acceptedWhileReading.add(key);
      } else {
        toSettle.add(key);
      }
    }

    boolean quiet() {
      return toSettle.isEmpty() && reading.isEmpty() && failed.isEmpty();
    }
  }

  private final boolean enabled;
  private final boolean shipBeforeRecommit;
  private final int maxKeys;
  private final long roundTimeoutNanos;
  private final CellStore store;
  private Placement placement;

  private final Map<Integer, Written> written = new HashMap<>();

  /** Key-ordered so ticks visit drains in a reproducible order. */
  private final Map<Integer, Drain> drains = new TreeMap<>();

  private final Map<Long, Drain> reads = new HashMap<>();
  private long nextReadId = READ_ID_TOP;

  /**
   * A base of a range: this node's cells hold every value of the range chosen up to the end of
   * {@code term} (a graceful base, reached at the shipment of {@code term} from leader-only mode),
   * or, if {@code entry}, every value chosen <em>before</em> {@code term} (an entry base, reached
   * after entering leader-only mode in {@code term}: docs/PROTOCOL.md "A killed holder: covering
   * its term"), under ring version {@code ringVersion}.
   */
  private record Base(long term, long ringVersion, boolean entry) {}

  /** Per range: this node's base, if any. */
  private final Map<Integer, Base> base = new HashMap<>();

  /**
   * An entry into leader-only mode in {@code term} whose entry base waits for the values the scan
   * (or an import) brought in to reach this node's cells: per key, the value it was catching up to
   * at the entry.
   */
  private static final class PendingEntry {
    final long term;
    final long ringVersion;
    final Map<Key, AcceptedValue> waiting;

    PendingEntry(long term, long ringVersion, Map<Key, AcceptedValue> waiting) {
      this.term = term;
      this.ringVersion = ringVersion;
      this.waiting = waiting;
    }
  }

  /** Key-ordered so steps visit them in a reproducible order. */
  private final Map<Integer, PendingEntry> pendingEntries = new TreeMap<>();

  private final boolean importEntryWithoutCoverage;
  private final boolean entryBaseBeforeCatchUp;

  /** Ranges whose pending import was taken on an entry base (counted when it enters). */
  private final Set<Integer> importsOnEntryBase = new HashSet<>();

  private long entryBasesReached;
  private long enteredOnEntryBase;

  /**
   * Ranges whose base has a durable record, as far as this core knows (it reached or restored the
   * base and has not dropped the record since).
   */
  private final Set<Integer> recorded = new HashSet<>();

  private long restored;

  /** Per range: an imported shipment waiting for this node's next term to be persisted. */
  private final Map<Integer, HandOffShipment> imports = new TreeMap<>();

  private long shipped;
  private long classified;
  private long declined;
  private long entered;
  private long refused;

  HandOffs(CoreConfig config, long roundTimeoutNanos, CellStore store) {
    this.enabled = config.modes().handOff() && config.leases().enabled();
    this.shipBeforeRecommit = config.broken(Sabotage.SHIP_BEFORE_RECOMMIT);
    this.importEntryWithoutCoverage = config.broken(Sabotage.IMPORT_ENTRY_BASE_WITHOUT_COVERAGE);
    this.entryBaseBeforeCatchUp = config.broken(Sabotage.ENTRY_BASE_BEFORE_CATCH_UP);
    this.maxKeys = config.modes().handOffMaxKeys();
    this.roundTimeoutNanos = roundTimeoutNanos;
    this.store = store;
    this.placement = config.placement();
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
    Drain d = drains.get(range);
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
    Written w = written.computeIfAbsent(range, r -> new Written());
    if (w.term != term) {
      w.reset(term);
    }
    if (!w.overflow && w.keys.add(key) && w.keys.size() > WRITTEN_KEYS_MAX) {
      w.overflow = true;
      w.keys.clear();
    }
    Drain d = drains.get(range);
    if (d != null && d.term == term && !ownsRead(requestId)) {
      d.needsSettle(key); // a round that started before the drain still sends: settle it after
    }
  }

  /**
   * A run saw a value of {@code key} carrying a ballot of the predecessor's term of this node's
   * term {@code term}: the key counts as written in {@code term} ({@link #acceptSent}), so its
   * drain settles it and the shipment names it.
   */
  void classified(Key key, int range, long term) {
    if (!enabled || term == 0) {
      return;
    }
    Written w = written.computeIfAbsent(range, r -> new Written());
    if (w.term != term) {
      w.reset(term);
    }
    if (w.keys.contains(key) || w.predecessorOverflow || !w.predecessorKeys.add(key)) {
      return;
    }
    classified++;
    if (w.predecessorKeys.size() > WRITTEN_KEYS_MAX) {
      w.predecessorOverflow = true;
      w.predecessorKeys.clear();
    }
  }

  /**
   * Whether a shipment of {@code term} of {@code range} can name every key of its predecessor's
   * term this node saw: false once more were seen than remembered.
   */
  boolean predecessorKeysKept(int range, long term) {
    Written w = written.get(range);
    return w == null || w.term != term || !w.predecessorOverflow;
  }

  /** Keys {@link #classified} as of the predecessor's term, not written by this node (tests). */
  long classified() {
    return classified;
  }

  // ---- The holder: drain and ship ---------------------------------------------------------------

  /**
   * How many keys this node wrote in {@code term} of {@code range} if that is more than a hand-off
   * drains ({@link CoreConfig.Modes#handOffMaxKeys} or this hand-off's {@code cap}, whichever is
   * lower; beyond {@link #WRITTEN_KEYS_MAX}: that + 1), else -1. A drain already running is never
   * declined. Declining changes nothing: the range keeps taking operations and the agent releases
   * plainly, today's path without hand-off.
   */
  int declines(int range, long term, int cap) {
    if (!enabled || drains.containsKey(range)) {
      return -1;
    }
    Written w = written.get(range);
    if (w == null || w.term != term) {
      return -1;
    }
    int count = w.overflow ? WRITTEN_KEYS_MAX + 1 : w.keys.size();
    if (count <= Math.min(maxKeys, cap)) {
      return -1;
    }
    declined++;
    return count;
  }

  /**
   * {@link Input.HandOff}: starts draining {@code range} if this node holds its term {@code term}
   * (the caller checked) and remembers every key it wrote in it. With {@link
   * Sabotage#SHIP_BEFORE_RECOMMIT} it returns a shipment made at once, else null.
   */
  HandOffShipment begin(Now now, int range, long term, LeaseState.ScanReads via, List<Effect> out) {
    if (!enabled || drains.containsKey(range)) {
      return null;
    }
    Written w = written.get(range);
    if (w != null && w.term == term && w.overflow) {
      return null; // too many keys to ship: the successor scans
    }
    Drain d = new Drain(range, term);
    if (w != null && w.term == term) {
      d.toSettle.addAll(w.keys);
    }
    d.startKeys = d.toSettle.size();
    if (shipBeforeRecommit) {
      // The broken rule: no settle reads, no waiting for the rounds in flight; each written key
      // ships its newest local value as if it were chosen.
      List<HandOffShipment.Entry> entries = new ArrayList<>();
      for (Key key : w != null && w.term == term ? w.shipped() : d.toSettle) {
        AcceptedValue a = localValue(key);
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
    Drain d = reads.remove(id);
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
      Drain d = it.next();
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
  private List<HandOffShipment.Entry> settledEntries(Now now, Drain d) {
    Written w = written.get(d.range);
    if (w == null || w.term != d.term) {
      return List.of();
    }
    TreeSet<Key> shipped = w.shipped();
    List<HandOffShipment.Entry> entries = new ArrayList<>(shipped.size());
    List<Key> notYet = new ArrayList<>();
    for (Key key : shipped) {
      AcceptedValue a;
      try {
        a = localValue(key);
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

  private AcceptedValue localValue(Key key) {
    Cell cell = store.get(key);
    return cell == null ? null : cell.accepted();
  }

  private HandOffShipment ship(Drain d, List<HandOffShipment.Entry> entries) {
    shipped++;
    return new HandOffShipment(d.range, d.term, entries);
  }

  /**
   * The holder shipped {@code term} of {@code range}: if it served the term in leader-only mode its
   * cells now hold every value of the range chosen up to the term's end.
   */
  void shippedFrom(int range, long term, boolean leaderOnly, List<Effect> out) {
    pendingEntries.remove(range); // the shipment's base (or none) supersedes the entry's
    if (leaderOnly) {
      base.put(range, new Base(term, placement.ringVersion(), false));
      recorded.add(range);
      out.add(new Effect.BaseReached(range, term, placement.ringVersion()));
    } else {
      base.remove(range);
      dropRecord(range, out);
    }
  }

  /**
   * {@link Input.RestoreBase} at start: the base this node recorded before it restarted, taken only
   * if the ring is the one it was recorded under and no term of the range reached this core yet
   * (the driver feeds it first). A record that is not taken is dropped.
   */
  void restore(Input.RestoreBase r, long termHeld, List<Effect> out) {
    if (!enabled) {
      return;
    }
    if (r.ringVersion() != placement.ringVersion()
        || termHeld != 0
        || base.containsKey(r.range())) {
      out.add(new Effect.BaseDropped(r.range()));
      return;
    }
    base.put(r.range(), new Base(r.term(), r.ringVersion(), r.entry()));
    recorded.add(r.range());
    restored++;
  }

  // ---- The entry base (docs/PROTOCOL.md "A killed holder: covering its term", step 3) -----------

  /**
   * {@code range} entered leader-only mode in {@code term} (its scan completed with no key left
   * unread, or an import was visible): once each of {@code catchingUp} — the values of the range
   * this node had learned chosen but not yet in its cells at the entry — is in its cells, the cells
   * hold every value of the range chosen before {@code term}, and the entry base is reached ({@link
   * #entryTick}).
   */
  void enteredLeaderOnly(int range, long term, Map<Key, AcceptedValue> catchingUp) {
    if (!enabled) {
      return;
    }
    pendingEntries.put(
        range,
        new PendingEntry(
            term,
            placement.ringVersion(),
            entryBaseBeforeCatchUp ? new HashMap<>() : new HashMap<>(catchingUp)));
  }

  /**
   * Reaches each pending entry base whose values are all in this node's cells: {@code stillWaiting}
   * says whether a key is still catching up to the value it waited for (or to an older one). The
   * base goes in memory and out as {@link Effect.BaseReached} with {@code entry}: the driver
   * flushes, then records it.
   */
  void entryTick(
      java.util.function.BiPredicate<Key, AcceptedValue> stillWaiting,
      LeaseState leases,
      List<Effect> out) {
    if (pendingEntries.isEmpty()) {
      return;
    }
    for (var it = pendingEntries.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      int range = e.getKey();
      PendingEntry p = e.getValue();
      if (p.term > leases.term(range)) {
        // Kept on: an entry of a term this node was never granted is a bug in the caller.
        throw new IllegalStateException(
            "entry base of term " + p.term + " of range " + range + " above the term held");
      }
      p.waiting.entrySet().removeIf(w -> !stillWaiting.test(w.getKey(), w.getValue()));
      if (!p.waiting.isEmpty()) {
        continue;
      }
      it.remove();
      Base b = base.get(range);
      if (b != null && b.term >= p.term && !b.entry) {
        continue; // a graceful base of this term (or later) already says more
      }
      base.put(range, new Base(p.term, p.ringVersion, true));
      recorded.add(range);
      entryBasesReached++;
      out.add(new Effect.BaseReached(range, p.term, p.ringVersion, true));
    }
  }

  /** Entry bases this core reached (tests). */
  long entryBasesReached() {
    return entryBasesReached;
  }

  /** Ranges this core put in leader-only mode by an import taken on an entry base (tests). */
  long enteredOnEntryBase() {
    return enteredOnEntryBase;
  }

  /**
   * This node was granted a term of {@code range}: from now on it may coordinate rounds of the
   * range itself, after which its cells no longer hold "nothing but values chosen up to the base
   * and the stand-in's accepts" — so the durable record goes now, before the term's persist and
   * first accept (later effects of this step). The in-memory base stays: it is what lets this very
   * term import the stand-in's shipment.
   */
  void granted(int range, List<Effect> out) {
    if (enabled) {
      pendingEntries.remove(range); // never recorded once the node may write the range again
      dropRecord(range, out);
    }
  }

  private void dropRecord(int range, List<Effect> out) {
    if (recorded.remove(range)) {
      out.add(new Effect.BaseDropped(range));
    }
  }

  long restored() {
    return restored;
  }

  private void pump(Now now, Drain d, LeaseState.ScanReads via, List<Effect> out) {
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

  // ---- The successor: import and enter --------------------------------------------------------

  /**
   * {@link Input.ImportShipment}: taken only if this node's base of the range is the shipment's
   * term − 1 and every entry is a key of the range (a shipment comes from a peer: anything else is
   * refused, never trusted). Returns the commits that merge the shipped values into this node's
   * cells; empty if refused.
   */
  List<Message.Commit> importShipment(HandOffShipment s) {
    if (!enabled || s.range() >= placement.rangeCount()) {
      refused++;
      return List.of();
    }
    Base b = base.get(s.range());
    if (b == null || b.term != s.term() - 1 || !keysOfRange(s) || !entryChain(b, s)) {
      refused++;
      return List.of();
    }
    imports.put(s.range(), s);
    if (b.entry) {
      importsOnEntryBase.add(s.range());
    } else {
      importsOnEntryBase.remove(s.range());
    }
    List<Message.Commit> commits = new ArrayList<>();
    for (HandOffShipment.Entry e : s.entries()) {
      if (e.chosen() != null) {
        commits.add(new Message.Commit(e.key(), e.chosen()));
      }
    }
    return commits;
  }

  /**
   * An entry base of {@code t} vouches only for values chosen before {@code t}: the shipment of
   * {@code t + 1} must name every key chosen in {@code t} — it covers {@code t} — and the ring must
   * be the one the base was reached under (a settle re-commits under its own ballot, which no
   * classification sees). A graceful base needs neither (its own shipment covered {@code t}).
   */
  private boolean entryChain(Base b, HandOffShipment s) {
    if (!b.entry) {
      return true;
    }
    if (importEntryWithoutCoverage) {
      return true;
    }
    return s.coversTerm() == b.term && b.ringVersion == placement.ringVersion();
  }

  private boolean keysOfRange(HandOffShipment s) {
    Key previous = null;
    for (HandOffShipment.Entry e : s.entries()) {
      if (RangeTerm.isReserved(e.key())
          || placement.rangeOf(e.key()) != s.range()
          || (previous != null && previous.compareTo(e.key()) >= 0)) {
        return false;
      }
      previous = e.key();
    }
    return true;
  }

  boolean hasImports() {
    return !imports.isEmpty();
  }

  /**
   * Puts each range whose imported shipment is visible in this node's cells, and whose next term
   * this node holds persisted, in leader-only mode; drops imports a later term made useless.
   */
  void enterImported(Now now, LeaseState leases) {
    for (var it = imports.values().iterator(); it.hasNext(); ) {
      HandOffShipment s = it.next();
      long term = leases.term(s.range());
      if (term > s.term() + 1) {
        it.remove(); // someone held a term in between: the shipment covers too little
        importsOnEntryBase.remove(s.range());
        continue;
      }
      if (term != s.term() + 1 || !leases.awaitsLeaderOnly(s.range(), term) || !visible(s)) {
        continue;
      }
      it.remove();
      boolean onEntryBase = importsOnEntryBase.remove(s.range());
      if (onEntryBase && !importEntryWithoutCoverage) {
        // Kept on: an import on an entry base needs the covering shipment (entryChain).
        Base b = base.get(s.range());
        if (b == null || !b.entry || s.coversTerm() != b.term || s.coversTerm() != s.term() - 1) {
          throw new IllegalStateException(
              "leader-only by import on entry base "
                  + b
                  + " with shipment covering "
                  + s.coversTerm()
                  + " of term "
                  + s.term());
        }
      }
      if (leases.enterLeaderOnlyByHandOff(s.range(), term)) {
        entered++;
        if (onEntryBase) {
          enteredOnEntryBase++;
        }
      }
    }
  }

  /** Whether every shipped value is held chosen by this node's cells (⊥: nothing live chosen). */
  private boolean visible(HandOffShipment s) {
    for (HandOffShipment.Entry e : s.entries()) {
      AcceptedValue a;
      try {
        a = localValue(e.key());
      } catch (CellStoreException unreadable) {
        return false;
      }
      boolean ok =
          e.chosen() == null
              ? a == null || !a.chosen() || a.isDelete()
              : a != null
                  && a.chosen()
                  && (a.sameTriple(e.chosen()) || a.compareInstance(e.chosen()) > 0);
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** A range whose replica set changed: what the old set vouched for counts no more. */
  void placementChanged(PlacementChange change, List<Effect> out) {
    placement = change.next();
    for (int i = 0; i < placement.rangeCount(); i++) {
      if (change.replicasChanged(i)) {
        base.remove(i);
        pendingEntries.remove(i);
        dropRecord(i, out);
        imports.remove(i);
        importsOnEntryBase.remove(i);
        drains.remove(i);
        written.remove(i);
      }
    }
  }

  long shipped() {
    return shipped;
  }

  long declined() {
    return declined;
  }

  long entered() {
    return entered;
  }

  long refused() {
    return refused;
  }
}
