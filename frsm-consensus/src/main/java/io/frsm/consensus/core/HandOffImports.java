package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The importer side of hand-off instead of a scan (docs/PROTOCOL.md "Hand-off instead of a scan"),
 * with {@link CoreConfig.Modes#handOff} on: take a holder's shipment ({@link HandOffDrains}) on a
 * base ({@link HandOffBases}) and enter leader-only mode without a scan.
 *
 * <p>{@link Input.ImportShipment} of term {@code t} is taken only by a node whose base is {@code t
 * − 1} (it shipped {@code t − 1} itself; no term in between); each shipped value is merged into its
 * cells as a commit. Once those are visible and the node holds term {@code t + 1} persisted at a
 * quorum, the range enters leader-only mode without a scan. Anything else (no base, a term in
 * between, a shipment missing or refused) leaves the scan to run as before. An entry base of {@code
 * t} takes only a shipment of {@code t + 1} that covers {@code t} (docs/PROTOCOL.md "A killed
 * holder: covering its term", step 4).
 */
final class HandOffImports {
  private final boolean enabled;
  private final boolean importEntryWithoutCoverage;
  private final CellStore store;
  private final HandOffBases bases;
  private Placement placement;

  /** Per range: an imported shipment waiting for this node's next term to be persisted. */
  private final Map<Integer, HandOffShipment> imports = new TreeMap<>();

  /** Ranges whose pending import was taken on an entry base (counted when it enters). */
  private final Set<Integer> importsOnEntryBase = new HashSet<>();

  private long entered;
  private long enteredOnEntryBase;
  private long refused;

  HandOffImports(CoreConfig config, CellStore store, HandOffBases bases) {
    this.enabled = HandOffDrains.enabled(config);
    this.importEntryWithoutCoverage = config.broken(Sabotage.IMPORT_ENTRY_BASE_WITHOUT_COVERAGE);
    this.store = store;
    this.bases = bases;
    this.placement = config.placement();
  }

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
    HandOffBases.Base b = bases.of(s.range());
    if (b == null || b.term() != s.term() - 1 || !keysOfRange(s) || !entryChain(b, s)) {
      refused++;
      return List.of();
    }
    imports.put(s.range(), s);
    if (b.entry()) {
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
  private boolean entryChain(HandOffBases.Base b, HandOffShipment s) {
    if (!b.entry()) {
      return true;
    }
    if (importEntryWithoutCoverage) {
      return true;
    }
    return s.coversTerm() == b.term() && b.ringVersion() == placement.ringVersion();
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
        HandOffBases.Base b = bases.of(s.range());
        if (b == null
            || !b.entry()
            || s.coversTerm() != b.term()
            || s.coversTerm() != s.term() - 1) {
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
        a = store.accepted(e.key());
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

  /** A range whose replica set changed: a shipment imported under the old set is dropped. */
  void placementChanged(PlacementChange change) {
    placement = change.next();
    for (int i : change.rangesWithReplicasChanged()) {
      imports.remove(i);
      importsOnEntryBase.remove(i);
    }
  }

  /** Ranges this core put in leader-only mode from an imported shipment (tests). */
  long entered() {
    return entered;
  }

  /** Ranges this core put in leader-only mode by an import taken on an entry base (tests). */
  long enteredOnEntryBase() {
    return enteredOnEntryBase;
  }

  long refused() {
    return refused;
  }
}
