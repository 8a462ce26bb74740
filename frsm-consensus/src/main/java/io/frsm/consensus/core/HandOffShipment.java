package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Key;
import java.util.List;
import java.util.Objects;

/**
 * What a range holder hands its successor at a hand-off (docs/PROTOCOL.md "Hand-off instead of a
 * scan"): every key of range {@code range} this node sent an accept for in its term {@code term},
 * each with the value its drain settled — chosen, or null where a quorum holds nothing (⊥). In the
 * simulator the core builds it from its written-keys set; in the server it stands for the term's
 * segregated SSTables (the cells this node flushed for the range since the term began, a superset).
 *
 * @param entries in key order, at most one per key
 * @param coversTerm {@code term − 1} if the entries also name every key whose value was chosen in
 *     that term (docs/PROTOCOL.md "A killed holder: covering its term"), else 0. Carried by the
 *     server's hand-off stream inside the checksummed entries (docs/formats/streaming.md); an
 *     import on an entry base of {@code term − 1} needs it.
 */
public record HandOffShipment(int range, long term, List<Entry> entries, long coversTerm) {

  /** One key and its settled value: chosen, or null for ⊥ (nothing chosen at a quorum). */
  public record Entry(Key key, AcceptedValue chosen) {
    public Entry {
      Objects.requireNonNull(key);
      if (chosen != null && !chosen.chosen()) {
        throw new IllegalArgumentException("a shipped value is chosen or absent: " + chosen);
      }
    }
  }

  public HandOffShipment {
    if (range < 0 || term < 1) {
      throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
    }
    if (coversTerm != 0 && coversTerm != term - 1) {
      throw new IllegalArgumentException(
          "a shipment of term " + term + " covers term " + (term - 1) + " or none: " + coversTerm);
    }
    entries = List.copyOf(entries);
  }

  /** A shipment that covers no earlier term. */
  public HandOffShipment(int range, long term, List<Entry> entries) {
    this(range, term, entries, 0);
  }

  /** This shipment, marked as covering {@code covered} (0: none). */
  public HandOffShipment covering(long covered) {
    return covered == coversTerm ? this : new HandOffShipment(range, term, entries, covered);
  }
}
