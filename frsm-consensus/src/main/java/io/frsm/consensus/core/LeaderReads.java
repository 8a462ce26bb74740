package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Leader-only reads (docs/DESIGN.md "Leader-only read"): 0 messages, one local read. Served only
 * when the node holds the range's lease, is in leader-only mode for the range in its current term,
 * and its durable local cell is chosen or absent — and, beyond docs/DESIGN.md, only when the local
 * cell is known to be up to date with what this node itself learned:
 *
 * <ul>
 *   <li>a value this node's round chose, or a quorum read found chosen, reaches the local cell
 *       through an asynchronous commit to itself; until that commit is durable the local cell may
 *       hold the older value, so the key is <em>catching up</em> and reads go to a quorum;
 *   <li>an accept this node sent whose round failed may still be chosen later without this node
 *       hearing of it; until a later prepare of this node reaches a quorum (which kills the lower
 *       ballot) or a later round of this node is chosen, the key has an <em>open accept</em>.
 * </ul>
 *
 * Order: read the cell, then check the lease, then reply. The lease is checked against the step's
 * {@link Now}, which the driver stamps after the request arrived: the value is current at that
 * instant, inside the operation's interval.
 */
final class LeaderReads {
  private final LeaseState leases;
  private final CellStore store;
  private final boolean enabled;
  private final boolean skipLeaseCheck;
  private final Map<Key, AcceptedValue> catchingUp = new HashMap<>();
  private final Set<Key> openAccepts = new HashSet<>();

  /**
   * Keys a holder's scan could not read ({@link RangeScan#READ_ATTEMPTS}): their local cell may
   * lack a chosen value, so they stay unsettled until this node learns one chosen for them (its own
   * round, or a quorum read: {@link #learnedChosen}) or a later scan reads them.
   */
  private final Set<Key> unscanned = new HashSet<>();

  private ReadGate gate = ReadGate.NONE;

  /**
   * Keys that became settled during the current step: the gate hears of them only at its end
   * ({@link #endOfStep}), so a key settled and unsettled again within one step (a prepare quorum
   * closes an open accept, then the same step sends a new accept) never looks settled to a reader.
   */
  private final java.util.List<Key> settledThisStep = new java.util.ArrayList<>();

  private long served;

  /** {@code enabled} false: never answer from the local cell (every read goes to a quorum). */
  LeaderReads(LeaseState leases, CellStore store, boolean enabled, boolean skipLeaseCheck) {
    this.leases = leases;
    this.store = store;
    this.enabled = enabled;
    this.skipLeaseCheck = skipLeaseCheck;
  }

  /**
   * From now on {@code gate} learns which keys are unsettled (catching up or with an open accept),
   * for reads served outside the core's thread. Only keys that become unsettled from now on are
   * told: call before the first step.
   */
  void publishTo(ReadGate gate) {
    this.gate = java.util.Objects.requireNonNull(gate);
  }

  /** Whether reads of the key are served outside the core's thread at all (not sabotaged). */
  boolean enabledOutsideCore() {
    return enabled && !skipLeaseCheck;
  }

  private boolean unsettled(Key key) {
    return catchingUp.containsKey(key) || openAccepts.contains(key) || unscanned.contains(key);
  }

  /** The holder's scan gave up reading {@code key}: unsettled until its chosen value is learned. */
  void scanSkipped(Key key) {
    if (!leases.enabled()) {
      return;
    }
    boolean was = unsettled(key);
    unscanned.add(key);
    if (!was) {
      gate.unsettled(key);
    }
  }

  /** A scan read of {@code key} answered: whatever an earlier scan left unread is read now. */
  void scanRead(Key key) {
    if (unscanned.remove(key) && !unsettled(key)) {
      settledThisStep.add(key);
    }
  }

  /** The answer from the local cell, or null: the read must go to a quorum. */
  Outcome tryServe(Now now, Key key) {
    Authoritative local = authoritative(now, key);
    if (local == null) {
      return null;
    }
    served++;
    return new Outcome.ReadResult(Run.visible(local.newest()));
  }

  /**
   * Whether the only thing keeping a leader-only read of the key from being served now is that the
   * local cell is catching up with a value this node learned chosen (its commit to itself is not
   * durable yet): worth waiting a moment for, rather than reading a quorum.
   */
  boolean onlyCatchingUp(Now now, Key key) {
    return enabled
        && !skipLeaseCheck
        && leases.leaderOnly(key)
        && catchingUp.containsKey(key)
        && !openAccepts.contains(key)
        && leases.holdsLease(now, key);
  }

  /**
   * A CAS or delete expecting {@code expected}, answered from the local cell when a leader-only
   * read could be served now and shows a different newest version: it fails as a mismatch with no
   * round, linearized at this instant exactly as that read would be (a failed CAS changes nothing
   * and reports what it saw). Null when the local cell matches {@code expected} or cannot answer:
   * the operation runs its rounds. Without this a doomed CAS on a hot key would prepare to learn
   * what the leader already knows, and leave the key cold for the next one.
   *
   * <p>With an idempotency {@code hint} (docs/PROTOCOL.md "Idempotent resends"): a newest value at
   * {@code (e, t+1)} carrying the hint's token is this mutation's own, chosen: answered written (or
   * deleted) at that version, no round. A resend that finds the key past {@code expected} under
   * another value is answered unknown instead of a mismatch.
   */
  Outcome answerFromLocalCell(Now now, Key key, Version expected, IdempotencyHint hint) {
    Authoritative local = authoritative(now, key);
    if (local == null) {
      local = learnedNewest(now, key);
    }
    if (local == null) {
      return null;
    }
    AcceptedValue a = local.newest();
    if (a != null
        && !a.isDelete()
        && a.epoch() == expected.epoch()
        && a.timestamp() == expected.timestamp()) {
      return null;
    }
    if (a != null && CasRun.isOwnResent(hint, expected, a)) {
      Version at = Run.versionOf(a);
      return a.isDelete() ? new Outcome.Deleted(at) : new Outcome.Written(at);
    }
    return CasRun.refusal(hint, expected, a);
  }

  /**
   * The newest chosen value of a key (null: absent), as the local cell holds it under the lease.
   */
  private record Authoritative(AcceptedValue newest) {}

  /**
   * The local cell's chosen value when it is the key's newest one (see the class comment), or null.
   * Reads the cell first and checks the lease after, against the step's time.
   */
  private Authoritative authoritative(Now now, Key key) {
    if (!enabled
        || !leases.leaderOnly(key)
        || catchingUp.containsKey(key)
        || openAccepts.contains(key)) {
      return null;
    }
    Cell local;
    try {
      local = store.get(key);
    } catch (CellStoreException unreadable) {
      // A quarantined or unreadable cell: never serve it locally; the operation runs its rounds
      // at the other replicas (this node's acceptor stays silent for the key meanwhile).
      return null;
    }
    AcceptedValue a = local == null ? null : local.accepted();
    if (a != null && !a.chosen()) {
      return null;
    }
    if (!skipLeaseCheck && !leases.holdsLease(now, key)) {
      return null; // checked after the read: the value was current while the lease held
    }
    return new Authoritative(a);
  }

  /**
   * The value this node learned chosen for a key that is only catching up (its commit to itself not
   * yet durable, no accept of its own open), under the lease: the key's newest chosen value as
   * surely as the local cell is once the commit lands — nothing newer can be chosen in this term
   * but by this node's own rounds, and it has none open. Null otherwise.
   *
   * <p>Only a doomed CAS is answered from it, never a read: a read waits for the local cell ({@link
   * #onlyCatchingUp}), whose value the caller-thread path serves too. A CAS queued behind the round
   * that just chose the key's next version is doomed exactly in this window; sending it to a
   * prepare instead raised the key's promise above its warm ballot and made the next CAS cold as
   * well (issue 26: independent clients on a hot key).
   */
  private Authoritative learnedNewest(Now now, Key key) {
    AcceptedValue learned = catchingUp.get(key);
    if (learned == null
        || !enabled
        || skipLeaseCheck
        || !leases.leaderOnly(key)
        || openAccepts.contains(key)) {
      return null;
    }
    assert learned.chosen() : "a catching-up value is one learned chosen: " + learned;
    Cell local;
    try {
      local = store.get(key);
    } catch (CellStoreException unreadable) {
      return null;
    }
    // The entry stays until a chosen persist at or past it is durable; a commit to itself that the
    // acceptor ignored (its cell already held a newer instance) never clears it. Then the cell is
    // newer than what was learned, and only the rounds can say what is newest.
    if (local != null
        && local.accepted() != null
        && local.accepted().compareInstance(learned) > 0) {
      return null;
    }
    if (!leases.holdsLease(now, key)) {
      return null; // checked after the read, as for a leader-only read
    }
    return new Authoritative(learned);
  }

  long served() {
    return served;
  }

  /** This node sent an accept for {@code key}: until its round is settled, the key is open. */
  void acceptSent(Key key) {
    if (leases.enabled()) {
      boolean was = unsettled(key);
      openAccepts.add(key);
      if (!was) {
        gate.unsettled(key);
      }
    }
  }

  /** A prepare of this node reached a quorum: its own lower-ballot accepts can no longer win. */
  void prepared(Key key) {
    if (openAccepts.remove(key) && !unsettled(key)) {
      settledThisStep.add(key);
    }
  }

  /** This node learned {@code value} is chosen for {@code key} and commits it to itself. */
  void learnedChosen(Key key, AcceptedValue value, boolean ownRound) {
    if (!leases.enabled()) {
      return;
    }
    boolean was = unsettled(key);
    // Catching up before the open accept is closed: the key never looks settled in between.
    catchingUp.merge(key, value, (old, v) -> v.compareInstance(old) >= 0 ? v : old);
    if (ownRound) {
      openAccepts.remove(key);
    }
    // A chosen value learned by this node's own round or quorum read is the key's newest: once
    // the local cell holds it (catching up, set above), nothing a skipped scan read missed remains.
    unscanned.remove(key);
    if (!was) {
      gate.unsettled(key);
    }
  }

  /** A chosen value became visible in the local cell of {@code key}. */
  void localDurable(Key key, AcceptedValue durable) {
    AcceptedValue waiting = catchingUp.get(key);
    if (waiting != null && (durable.sameTriple(waiting) || durable.compareInstance(waiting) > 0)) {
      catchingUp.remove(key);
      if (!unsettled(key)) {
        settledThisStep.add(key);
      }
    }
  }

  /** Tells the gate the keys settled in this step that are still settled at its end. */
  void endOfStep() {
    if (settledThisStep.isEmpty()) {
      return;
    }
    for (Key key : settledThisStep) {
      if (!unsettled(key)) {
        gate.settled(key);
      }
    }
    settledThisStep.clear();
  }

  /**
   * Whether a key of {@code range} is catching up: a value this node learned chosen (its own
   * round's, or one its scan read found) is not in its local cell yet.
   */
  boolean catchingUpIn(int range, Placement placement) {
    for (Key key : catchingUp.keySet()) {
      if (placement.rangeOf(key) == range) {
        return true;
      }
    }
    for (Key key : unscanned) {
      if (placement.rangeOf(key) == range) {
        return true; // never ship a base that may lack a chosen value the scan could not read
      }
    }
    return false;
  }

  /**
   * The keys of {@code range} catching up now, each with the value it waits for: what an entry base
   * waits for (docs/PROTOCOL.md "A killed holder: covering its term", step 3).
   */
  Map<Key, AcceptedValue> catchingUpOf(int range, Placement placement) {
    Map<Key, AcceptedValue> of = new HashMap<>();
    for (Map.Entry<Key, AcceptedValue> e : catchingUp.entrySet()) {
      if (placement.rangeOf(e.getKey()) == range) {
        of.put(e.getKey(), e.getValue());
      }
    }
    return of;
  }

  /**
   * Whether {@code key} still waits for {@code value} (or an older value) to reach the local cell.
   * A key catching up to a newer value does not: that value was chosen after the one waited for, in
   * this node's own term (see the entry base's argument).
   */
  boolean stillCatchingUpTo(Key key, AcceptedValue value) {
    AcceptedValue waiting = catchingUp.get(key);
    return waiting != null && waiting.compareInstance(value) <= 0;
  }

  /**
   * Whether a hand-off drain must settle {@code key} before shipping it (docs/PROTOCOL.md "Settle
   * only what may be open"): an accept of this node for it may still be chosen without this node
   * hearing of it (an open accept), or the local cell holds no chosen value (or nothing) while
   * nothing this node learned chosen is on its way to it. Otherwise the local cell already holds
   * the key's newest chosen value, or will once its commit to itself is durable, which the shipment
   * waits for: exactly what a leader-only read of the key relies on. A cell that cannot be read is
   * settled.
   */
  boolean drainMustSettle(Key key) {
    return openAccepts.contains(key) || localNotChosen(key);
  }

  /**
   * The second half of {@link #drainMustSettle}: no chosen value (or nothing) in the local cell and
   * none on its way to it. Alone, without the open accepts, it is {@link
   * Sabotage#DRAIN_IGNORES_OPEN_ACCEPTS}.
   */
  boolean localNotChosen(Key key) {
    if (catchingUp.containsKey(key)) {
      return false;
    }
    try {
      AcceptedValue local = store.accepted(key);
      // Nothing here is not ⊥: this node's accept never reached its own cell, and only a settle's
      // quorum can say that nothing was chosen.
      return local == null || !local.chosen();
    } catch (CellStoreException unreadable) {
      return true;
    }
  }

  /** Keys whose chosen value the local cell may still lack (diagnostics and tests). */
  int keysCatchingUp() {
    return catchingUp.size();
  }
}
