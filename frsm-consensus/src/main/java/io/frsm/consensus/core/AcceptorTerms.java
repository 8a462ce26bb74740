package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The acceptor's side of range terms (docs/DESIGN.md "Lease invariant" rule 4): the highest term
 * persisted per range, the check that kills prepares and accepts of an old holder, and the barrier
 * that holds a {@link Message.TermPersisted} until everything the replica took under an older term
 * is durable. Without the barrier a replica could acknowledge the new term while an old holder's
 * accept it already let through is still on its way to disk, and the new holder's scan could miss
 * that accept.
 *
 * <p>Terms are read from the reserved cells once per range per incarnation and then kept in memory;
 * a raised term is used for the check at once (refusing early is always safe) and acknowledged only
 * once durable.
 */
final class AcceptorTerms {
  private final CellStore store;
  private final LeaseConfig leases;
  private final Placement placement;
  private final Map<Integer, Long> termByRange = new HashMap<>();

  /**
   * Per range: the newest {@link TermRecord} this replica took (its term at most the range's term:
   * a listing or a persist without a floor raises the term alone), and the previous record written
   * with it. Loaded from the reserved cell with the term; kept in memory so a raise that follows a
   * record still on its way to disk names it as the previous one.
   */
  private final Map<Integer, TermRecord> latest = new HashMap<>();

  private final Map<Integer, TermRecord> previousOfLatest = new HashMap<>();
  private final List<Barrier> barriers = new ArrayList<>();

  /**
   * A held acknowledgement and the persists it waits for. The reply is made when released, so a key
   * listing reads the store after those persists are visible.
   */
  private record Barrier(Set<Long> waitingFor, Supplier<Effect> reply) {}

  AcceptorTerms(CellStore store, LeaseConfig leases, Placement placement) {
    this.store = store;
    this.leases = leases;
    this.placement = placement;
  }

  boolean enabled() {
    return leases.enabled();
  }

  /** The highest term this replica knows it persisted (or is persisting) for {@code range}. */
  long term(int range) {
    Long term = termByRange.get(range);
    if (term == null) {
      Cell cell = store.get(RangeTerm.cellKey(range));
      term = RangeTerm.termOf(cell);
      TermRecord stored = RangeTerm.storedRecord(cell);
      if (stored != null && stored.term() <= term) {
        latest.put(range, stored);
        TermRecord prev = RangeTerm.previousOf(cell);
        if (prev != null) {
          previousOfLatest.put(range, prev);
        }
      }
      termByRange.put(range, term);
    }
    return term;
  }

  /**
   * The record to persist for {@code record}'s term, with the previous record it names, if this
   * replica does not hold a record of that term yet; null if it does (nothing to write). The term
   * must already be raised to {@code record.term()} ({@link #raise}). Remembers it at once.
   */
  TermRecord[] recordToWrite(int range, TermRecord record) {
    if (term(range) != record.term()) {
      throw new IllegalStateException("record " + record + " for a term not held: " + term(range));
    }
    TermRecord had = latest.get(range);
    if (had != null && had.term() == record.term()) {
      return null; // one holder per term, one floor per grant: the record is already here
    }
    latest.put(range, record);
    if (had == null) {
      previousOfLatest.remove(range);
    } else {
      previousOfLatest.put(range, had);
    }
    return new TermRecord[] {record, had};
  }

  /**
   * The previous record to report for {@code term} of {@code range}: the one written with that
   * term's record; null if this replica holds no record of it.
   */
  TermRecord previousFor(int range, long term) {
    TermRecord had = latest.get(range);
    return had != null && had.term() == term ? previousOfLatest.get(range) : null;
  }

  /**
   * The refusal for a prepare or accept that carries {@code term} below the range's persisted term,
   * or null if it may proceed.
   */
  Effect refusal(int from, Message.Request request, long term) {
    if (!leases.enabled() || RangeTerm.isReserved(request.key())) {
      return null;
    }
    long persisted = term(placement.rangeOf(request.key()));
    if (term >= persisted) {
      return null;
    }
    return new Effect.Send(from, new Message.StaleTerm(request.key(), request.round(), persisted));
  }

  /** Raises the in-memory term; true if it went up (a persist is needed). */
  boolean raise(int range, long term) {
    if (term <= term(range)) {
      return false;
    }
    termByRange.put(range, term);
    return true;
  }

  /** Makes and sends {@code reply} once every persist in {@code waitingFor} is done. */
  void holdUntilDurable(Set<Long> waitingFor, Supplier<Effect> reply, List<Effect> out) {
    if (waitingFor.isEmpty()) {
      addReply(reply, out);
    } else {
      barriers.add(new Barrier(new HashSet<>(waitingFor), reply));
    }
  }

  /** The range of client key {@code key}. */
  int rangeOf(Key key) {
    return placement.rangeOf(key);
  }

  /** Whether {@code key} is a client key of {@code range} (the barrier's scope). */
  boolean inRange(Key key, int range) {
    return !RangeTerm.isReserved(key) && placement.rangeOf(key) == range;
  }

  /**
   * Persist {@code persistId} is durable: releases the acknowledgements that waited only for it.
   */
  void persistDone(long persistId, List<Effect> out) {
    for (Iterator<Barrier> it = barriers.iterator(); it.hasNext(); ) {
      Barrier b = it.next();
      if (b.waitingFor.remove(persistId) && b.waitingFor.isEmpty()) {
        it.remove();
        addReply(b.reply, out);
      }
    }
  }

  private static void addReply(Supplier<Effect> reply, List<Effect> out) {
    Effect e = reply.get();
    if (e != null) {
      out.add(e); // null: the store could not answer; stay silent like a crashed replica
    }
  }
}
