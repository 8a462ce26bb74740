package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The acceptor side of per-key Paxos: the only code that changes consensus state (docs/DESIGN.md
 * "Acceptor rules"). Comparisons use the effective promise, {@code max(promised, accepted)}.
 *
 * <p>Per key, one message is processed at a time: while a persist of key k is in flight, later
 * messages for k wait in k's lane, so every decision reads the key's latest durable state; other
 * keys never wait. A reply that describes a persist is held until the driver reports it durable.
 */
final class Acceptor {
  /**
   * The most keys, and key bytes, one listing returns, whatever the request asks: bounds the work
   * of one step and keeps the reply far below the frame limit.
   */
  static final int MAX_LISTED_KEYS = 1024;

  static final int MAX_LISTED_KEY_BYTES = 4 * 1024 * 1024;

  private final CellStore store;
  private final CoreConfig config;
  private final Map<Key, Lane> busyLanes = new HashMap<>();

  /** Persists in flight by id: no boxed id and no entry object per logged write. */
  private final LongKeyedMap<Lane> lanesByPersist = new LongKeyedMap<>();

  /** This replica's node id: its term records' own ballots (RangeTerm#termCell). */
  private final int nodeId;

  private final AcceptorTerms terms;
  private final RingVersions rings;
  private final boolean ignoreRingVersion;
  private final CoreCounters counters;
  private long nextPersistId;

  /** The messages of one key waiting behind its in-flight persist. */
  private static final class Lane {
    final Key key;
    long persistId;
    Effect heldReply;

    /** Null until a message waits: most persists finish with none behind them (one per write). */
    private ArrayDeque<Input.Receive> waiting;

    Lane(Key key) {
      this.key = key;
    }

    void hold(Input.Receive message) {
      if (waiting == null) {
        waiting = new ArrayDeque<>(4);
      }
      waiting.add(message);
    }

    /** The next waiting message, or null. */
    Input.Receive next() {
      return waiting == null ? null : waiting.poll();
    }

    /** Hands every message still waiting here to {@code successor}, in order. */
    void handOver(Lane successor) {
      if (waiting != null) {
        for (Input.Receive r : waiting) {
          successor.hold(r);
        }
        waiting.clear();
      }
    }
  }

  Acceptor(CellStore store, CoreConfig config, CoreCounters counters, int nodeId) {
    this.nodeId = nodeId;
    this.store = store;
    this.config = config;
    this.terms = new AcceptorTerms(store, config.leases(), config.placement());
    this.rings = new RingVersions(config.placement());
    this.ignoreRingVersion = config.broken(Sabotage.IGNORE_RING_VERSION);
    this.counters = counters;
  }

  /** The placement moved to a newer ring version (ranges never change, so terms are unaffected). */
  void placementChanged(PlacementChange change) {
    rings.install(change);
  }

  /**
   * Whether {@code message} must be refused for its ring version: a request or purge older than the
   * version at which its range's members last changed here, or a settle's listing of a version this
   * node has not installed. A refused request is answered with {@link Message.StaleRing}; a purge
   * dies silently (it is never answered).
   */
  private boolean refusedForRing(int from, Message message, List<Effect> out) {
    long version;
    RoundId round;
    if (message instanceof Message.Request request) {
      version = request.ringVersion();
      round = request.round();
    } else if (message instanceof Message.Purge purge) {
      version = purge.ringVersion();
      round = null;
    } else {
      return false; // a commit teaches a chosen value: chosen at any version, it stays chosen
    }
    int range = RangeTerm.rangeOf(message.key()); // a reserved cell belongs to the range it names
    if (range < 0 || range >= rings.rangeCount()) {
      range = terms.rangeOf(message.key());
    }
    boolean settleAhead =
        message instanceof Message.ListKeys lk && lk.settle() && lk.ringVersion() > rings.version();
    if (!settleAhead && (ignoreRingVersion || !rings.stale(range, version))) {
      return false;
    }
    counters.staleRingRefused();
    if (round != null) {
      out.add(new Effect.Send(from, new Message.StaleRing(message.key(), round, rings.version())));
    }
    return true;
  }

  /** REQUIRES: {@code message} is a request or a commit. */
  void receive(Now now, int from, Message message, List<Effect> out) {
    Lane lane = busyLanes.get(message.key());
    if (lane != null) {
      lane.hold(new Input.Receive(from, message));
      return;
    }
    process(now, from, message, out);
  }

  /** Returns false if {@code persistId} is not one of this acceptor's persists in flight. */
  boolean persistDone(Now now, long persistId, List<Effect> out) {
    Lane lane = lanesByPersist.remove(persistId);
    if (lane == null) {
      return false;
    }
    terms.persistDone(persistId, out);
    if (lane.heldReply != null) {
      out.add(lane.heldReply);
    }
    busyLanes.remove(lane.key);
    // Drain the key's waiting messages in arrival order until one starts a persist again.
    for (Input.Receive next = lane.next(); next != null; next = lane.next()) {
      process(now, next.from(), next.message(), out);
      Lane again = busyLanes.get(lane.key);
      if (again != null) {
        lane.handOver(again);
        break;
      }
    }
    return true;
  }

  /** Keys with a persist in flight (diagnostics and tests). */
  int busyKeys() {
    return busyLanes.size();
  }

  private void process(Now now, int from, Message message, List<Effect> out) {
    Key key = message.key();
    long writeTimeMs = Math.floorDiv(now.wallMicros(), 1000);
    if (refusedForRing(from, message, out)) {
      return; // a round counted over an outdated replica set dies here (PROTOCOL.md "Membership")
    }
    if (message instanceof Message.Commit c) {
      // A merge whatever this replica promised: the join keeps the newer instance and ORs the
      // chosen flag at the same one. A chosen live value is a hint wherever it lands, written
      // without the commit log: it is durable at the quorum that chose it, and a replica that
      // loses it is a replica the commit never reached (PROTOCOL.md "Commits are hints"). A
      // delete this replica does not hold yet is logged: delete phase 1 counts it.
      Cell delta = new Cell(key, Ballot.NONE, c.chosen(), null, writeTimeMs);
      boolean logged =
          c.chosen().isDelete()
              && !holdsProposal(key, c.chosen())
              && !config.broken(Sabotage.DELETE_COMMIT_AS_HINT);
      persist(key, delta, null, out, logged);
      return;
    }
    if (message instanceof Message.TermPersist tp && tp.floorRound() > 0) {
      persistTermRecord(from, tp, writeTimeMs, out);
      return;
    }
    if (message instanceof Message.TermPersist tp) {
      Effect ack =
          new Effect.Send(from, new Message.TermPersisted(tp.key(), tp.round(), tp.term()));
      persistTerm(from, tp.key(), tp.round(), tp.range(), tp.term(), () -> ack, writeTimeMs, out);
      return;
    }
    if (message instanceof Message.ListKeys lk && lk.settle()) {
      // A settle's listing: no term; listed once what the range already took is durable. From now
      // on this replica refuses older rounds of the range (it installed the version: checked
      // above), so no key it lacks now can be chosen by one of them later.
      terms.holdUntilDurable(rangePersistsInFlight(lk.range()), () -> listKeys(from, lk), out);
      return;
    }
    if (message instanceof Message.ListKeys lk) {
      persistTerm(
          from,
          lk.key(),
          lk.round(),
          lk.range(),
          lk.term(),
          () -> listKeys(from, lk),
          writeTimeMs,
          out);
      return;
    }
    if (message instanceof Message.Purge p) {
      // Phase 2 of delete: a blind merge of the mark (max), like a commit. A mark this replica
      // already holds (a resent purge, DeleteCompletion) would merge to the same cell: not written.
      if (!holdsPurgeMarkAtLeast(key, p.mark())) {
        persist(key, Cell.purge(key, p.mark(), writeTimeMs), null, out);
      }
      return;
    }
    Effect stale;
    try {
      stale =
          message instanceof Message.Prepare p
              ? terms.refusal(from, p, p.term())
              : message instanceof Message.Accept a ? terms.refusal(from, a, a.term()) : null;
    } catch (CellStoreException unreadableTerm) {
      return; // the range's term cannot be read: stay silent, as for an unreadable key
    }
    if (stale != null) {
      out.add(stale); // an old holder's late message dies here (docs/DESIGN.md "Lease invariant" 4)
      return;
    }
    Cell cell;
    try {
      cell = store.get(key);
    } catch (CellStoreException unreadable) {
      return; // a local failure: stay silent like a crashed replica (see CellStoreException)
    }
    Ballot promised = cell == null ? Ballot.NONE : cell.effectivePromise();
    AcceptedValue accepted = cell == null ? null : cell.accepted();
    if (message instanceof Message.Prepare p) {
      if (p.ballot().compareTo(promised) < 0) {
        out.add(reject(from, key, p.round(), p.ballot(), promised, accepted));
        return;
      }
      Effect promise =
          new Effect.Send(
              from, new Message.Promise(key, p.round(), p.ballot(), promised, accepted));
      if (p.ballot().equals(promised)) {
        out.add(promise); // a duplicate: the promise is durable already
      } else {
        persist(key, Cell.promise(key, p.ballot(), writeTimeMs), promise, out);
      }
    } else if (message instanceof Message.Accept a) {
      AcceptedValue proposal = a.proposal();
      boolean promiseAllows =
          a.ballot().compareTo(promised) >= 0
              || config.broken(Sabotage.ACCEPT_WITHOUT_PROMISE_CHECK);
      // No exact-version check: a replica that missed instances jumps ahead (paper §3.3.2).
      boolean instanceAllows = accepted == null || proposal.compareInstance(accepted) >= 0;
      if (!promiseAllows || !instanceAllows) {
        out.add(reject(from, key, a.round(), a.ballot(), promised, accepted));
        return;
      }
      Effect ack =
          new Effect.Send(
              from,
              new Message.Accepted(
                  key, a.round(), a.ballot(), proposal.epoch(), proposal.timestamp()));
      if (accepted != null && accepted.sameProposal(proposal) && promised.equals(a.ballot())) {
        out.add(ack); // a duplicate: already durable
      } else {
        persist(key, new Cell(key, a.ballot(), proposal, null, writeTimeMs), ack, out);
      }
    } else if (message instanceof Message.Read r) {
      out.add(new Effect.Send(from, new Message.ReadReply(key, r.round(), promised, accepted)));
    } else {
      throw new IllegalArgumentException("not an acceptor message: " + message);
    }
  }

  /**
   * Raises the range's term (persisting it if it went up) and sends {@code reply} once the term and
   * every persist of the range's keys already in flight (taken under the older term) are durable. A
   * term below the one this replica holds is refused with {@link Message.StaleTerm}.
   */
  private void persistTerm(
      int from,
      Key key,
      RoundId round,
      int range,
      long term,
      java.util.function.Supplier<Effect> reply,
      long writeTimeMs,
      List<Effect> out) {
    long known;
    try {
      known = terms.term(range);
    } catch (CellStoreException unreadableTerm) {
      return; // checked before any change: stay silent like a crashed replica
    }
    if (term < known) {
      out.add(new Effect.Send(from, new Message.StaleTerm(key, round, known)));
      return;
    }
    Set<Long> waitFor = rangePersistsInFlight(range);
    addPersistsOf(key, waitFor);
    if (terms.raise(range, term)) {
      waitFor.add(persist(key, RangeTerm.termCell(range, term, writeTimeMs), null, out));
    }
    terms.holdUntilDurable(waitFor, reply, out);
  }

  /**
   * A term persist with a floor (docs/PROTOCOL.md "A killed holder: covering its term"): as {@link
   * #persistTerm}, and the replica also keeps the term's record {@code (term, sender, sender's
   * boot, floor)} with the record of the term it held before, written with the term (or on its own
   * if a listing raised the term first) before the acknowledgement, which names that previous
   * record.
   */
  private void persistTermRecord(
      int from, Message.TermPersist tp, long writeTimeMs, List<Effect> out) {
    int range = tp.range();
    long known;
    try {
      known = terms.term(range);
    } catch (CellStoreException unreadableTerm) {
      return; // checked before any change: stay silent like a crashed replica
    }
    if (tp.term() < known) {
      out.add(new Effect.Send(from, new Message.StaleTerm(tp.key(), tp.round(), known)));
      return;
    }
    Set<Long> waitFor = rangePersistsInFlight(range);
    addPersistsOf(tp.key(), waitFor);
    terms.raise(range, tp.term());
    TermRecord[] write =
        terms.recordToWrite(
            range, new TermRecord(tp.term(), from, tp.round().boot(), tp.floorRound()));
    if (write != null) {
      waitFor.add(
          persist(
              tp.key(),
              RangeTerm.termCell(range, nodeId, write[0], write[1], writeTimeMs),
              null,
              out));
    }
    Effect ack =
        new Effect.Send(
            from,
            new Message.TermPersisted(
                tp.key(), tp.round(), tp.term(), terms.previousFor(range, tp.term())));
    terms.holdUntilDurable(waitFor, () -> ack, out);
  }

  /**
   * Adds the persists in flight of the range's term cell {@code termKey} to {@code waitFor}: a
   * resent term persist (or a listing) that finds the term already raised in memory must still not
   * be answered before the cell that raised it is durable. The key's lane holds such a message
   * until then anyway ({@link #receive}); this keeps the rule true for any other way in.
   */
  private void addPersistsOf(Key termKey, Set<Long> waitFor) {
    lanesByPersist.forEach(
        (id, lane) -> {
          if (lane.key.equals(termKey)) {
            waitFor.add(id);
          }
        });
  }

  /** The persists in flight of client keys of {@code range} (a barrier waits for them). */
  private Set<Long> rangePersistsInFlight(int range) {
    Set<Long> waitFor = new HashSet<>();
    // The table's order does not matter: the ids only fill a set.
    lanesByPersist.forEach(
        (id, lane) -> {
          if (terms.inRange(lane.key, range)) {
            waitFor.add(id);
          }
        });
    return waitFor;
  }

  /** The listing a {@link Message.ListKeys} asks for, or null if the store cannot be read. */
  private Effect listKeys(int from, Message.ListKeys lk) {
    int limit = Math.min(lk.limit(), MAX_LISTED_KEYS);
    List<Key> keys;
    try {
      keys = store.keysInRange(lk.fromToken(), lk.toToken(), lk.after(), limit + 1);
    } catch (CellStoreException unreadable) {
      return null; // a local failure: stay silent like a crashed replica
    }
    int fit = 0;
    long bytes = 0;
    while (fit < Math.min(keys.size(), limit)) {
      bytes += keys.get(fit).length();
      if (fit > 0 && bytes > MAX_LISTED_KEY_BYTES) {
        break;
      }
      fit++;
    }
    boolean more = keys.size() > fit;
    List<Key> page = keys.subList(0, fit);
    return new Effect.Send(from, new Message.KeysListed(lk.key(), lk.round(), page, more));
  }

  private static Effect reject(
      int to, Key key, RoundId round, Ballot ballot, Ballot promised, AcceptedValue accepted) {
    return new Effect.Send(to, new Message.Reject(key, round, ballot, promised, accepted));
  }

  /**
   * Whether this replica's cell holds {@code proposal} (triple, kind and bytes) as its accepted
   * part. Asked for deletes only: a delete reaches an accepted part only through logged persists
   * (accepts, and commits that bring it), and reads see a persist only once it is done, so a delete
   * the store shows here is durable. An unreadable store answers false.
   */
  private boolean holdsProposal(Key key, AcceptedValue proposal) {
    Cell cell;
    try {
      cell = store.get(key);
    } catch (CellStoreException unreadable) {
      return false;
    }
    return cell != null && cell.accepted() != null && cell.accepted().sameProposal(proposal);
  }

  /**
   * Whether this replica's cell carries a purge mark at or above {@code mark}, so that merging
   * {@code mark} changes nothing. Purges are logged persists and reads see a persist only once it
   * is done, so a mark the store shows is durable. An unreadable store answers false.
   */
  private boolean holdsPurgeMarkAtLeast(Key key, PurgeMark mark) {
    Cell cell;
    try {
      cell = store.get(key);
    } catch (CellStoreException unreadable) {
      return false;
    }
    return cell != null && cell.purge() != null && cell.purge().compareTo(mark) >= 0;
  }

  private long persist(Key key, Cell delta, Effect reply, List<Effect> out) {
    return persist(key, delta, reply, out, true);
  }

  private long persist(Key key, Cell delta, Effect reply, List<Effect> out, boolean logged) {
    long id = nextPersistId++;
    Lane lane = new Lane(key);
    lane.persistId = id;
    out.add(new Effect.Persist(id, delta, logged));
    if (reply != null && config.broken(Sabotage.ACK_BEFORE_PERSIST)) {
      out.add(reply);
    } else {
      lane.heldReply = reply;
    }
    busyLanes.put(key, lane);
    lanesByPersist.put(id, lane);
    return id;
  }
}
