package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The holder side's memory of what a term wrote (docs/PROTOCOL.md "Hand-off instead of a scan"):
 * every key this node sends an accept for in its current term of a range joins the range's
 * <em>written keys</em> (the simulator's stand-in for the term's segregated SSTables), and every
 * key whose value it saw under a ballot of its predecessor's term joins its <em>predecessor
 * keys</em> (docs/PROTOCOL.md "A killed holder: covering its term"). A drain ({@link
 * HandOffDrains}) settles them and its shipment names them; a class of its own so that the drain's
 * bookkeeping and this per-term record stay apart.
 */
final class WrittenKeys {
  /**
   * Written keys remembered per range and term at most; a term that wrote more cannot be handed off
   * (its successor scans).
   */
  static final int MAX = CoreConfig.Modes.HAND_OFF_KEYS_LIMIT;

  /** The keys this node sent accepts for in its term {@code term} of one range. */
  static final class Written {
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

  private final Map<Integer, Written> written = new HashMap<>();
  private long classified;

  /** What this node remembers of its latest term of {@code range}, if anything (of any term). */
  Written get(int range) {
    return written.get(range);
  }

  /** {@code range}'s record, started afresh if it was of another term than {@code term}. */
  private Written of(int range, long term) {
    Written w = written.computeIfAbsent(range, r -> new Written());
    if (w.term != term) {
      w.reset(term);
    }
    return w;
  }

  /** This node sent an accept for {@code key} under term {@code term} (not 0) of {@code range}. */
  void accepted(Key key, int range, long term) {
    Written w = of(range, term);
    if (!w.overflow && w.keys.add(key) && w.keys.size() > MAX) {
      w.overflow = true;
      w.keys.clear();
    }
  }

  /**
   * A run saw a value of {@code key} carrying a ballot of the predecessor's term of this node's
   * term {@code term} (not 0): the key counts as written in {@code term} ({@link #accepted}), so
   * its drain settles it and the shipment names it.
   */
  void classified(Key key, int range, long term) {
    Written w = of(range, term);
    if (w.keys.contains(key) || w.predecessorOverflow || !w.predecessorKeys.add(key)) {
      return;
    }
    classified++;
    if (w.predecessorKeys.size() > MAX) {
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

  /** A range whose replica set changed: what it wrote under the old set is forgotten. */
  void remove(int range) {
    written.remove(range);
  }
}
