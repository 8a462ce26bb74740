package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What lets a node import a hand-off instead of scanning (docs/PROTOCOL.md "Hand-off instead of a
 * scan"): per range its <em>base</em>, the term up to which its own cells hold every chosen value,
 * and the base's durable record. {@link HandOffImports} takes a shipment only on a base; a class of
 * its own because a base is reached, restored and dropped by inputs of its own, apart from any
 * import.
 *
 * <p>A node that ships a term it served in leader-only mode ({@link HandOffDrains}) remembers that
 * its own cells of the range hold every value chosen up to that term: its base.
 *
 * <p>The base lives in memory; it is also made durable by the driver ({@link Effect.BaseReached}:
 * flush the range, then write a record) and fed back at start ({@link Input.RestoreBase}), so a
 * node that restarted after its shipment can still import. The record is dropped ({@link
 * Effect.BaseDropped}) at this node's next grant of the range, whatever it brings: from then on the
 * node may write the range itself, which the record's premise excludes.
 *
 * <p>A killed holder (docs/PROTOCOL.md "A killed holder: covering its term", steps 3–4): after the
 * range enters leader-only mode in this node's term {@code t} and the values its scan learned are
 * in its cells, the node holds an <em>entry base</em> of {@code t} — its cells hold every value
 * chosen before {@code t} — kept durable the same way ({@link Effect.BaseReached} with {@code
 * entry}). It lets the node import only a shipment of {@code t + 1} that covers {@code t} (names
 * every key chosen in {@code t}) under an unchanged ring: so a holder killed in {@code t}, whose
 * cells may lack values chosen in {@code t} without its acceptor, can still return without a scan.
 */
final class HandOffBases {
  /**
   * A base of a range: this node's cells hold every value of the range chosen up to the end of
   * {@code term} (a graceful base, reached at the shipment of {@code term} from leader-only mode),
   * or, if {@code entry}, every value chosen <em>before</em> {@code term} (an entry base, reached
   * after entering leader-only mode in {@code term}: docs/PROTOCOL.md "A killed holder: covering
   * its term"), under ring version {@code ringVersion}.
   */
  record Base(long term, long ringVersion, boolean entry) {}

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

  private final boolean enabled;
  private final boolean entryBaseBeforeCatchUp;
  private Placement placement;

  /** Per range: this node's base, if any. */
  private final Map<Integer, Base> base = new HashMap<>();

  /** Key-ordered so steps visit them in a reproducible order. */
  private final Map<Integer, PendingEntry> pendingEntries = new TreeMap<>();

  /**
   * Ranges whose base has a durable record, as far as this core knows (it reached or restored the
   * base and has not dropped the record since).
   */
  private final Set<Integer> recorded = new HashSet<>();

  private long restored;
  private long entryBasesReached;

  HandOffBases(CoreConfig config) {
    this.enabled = HandOffDrains.enabled(config);
    this.entryBaseBeforeCatchUp = config.broken(Sabotage.ENTRY_BASE_BEFORE_CATCH_UP);
    this.placement = config.placement();
  }

  /** This node's base of {@code range}, or null. */
  Base of(int range) {
    return base.get(range);
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

  /** A range whose replica set changed: what the old set vouched for counts no more. */
  void placementChanged(PlacementChange change, List<Effect> out) {
    placement = change.next();
    for (int i : change.rangesWithReplicasChanged()) {
      base.remove(i);
      pendingEntries.remove(i);
      dropRecord(i, out);
    }
  }
}
