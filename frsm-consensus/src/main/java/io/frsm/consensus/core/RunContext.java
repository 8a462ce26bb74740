package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.List;

/**
 * What a {@link Run} may see and touch of the core around it, and nothing more: the timings, the
 * local store, this incarnation's ids and ballots, the warm state, the range's lease, leader-only
 * reads, peer responsiveness, the counters, and the delete completion. The runs' only way out: they
 * never hold the {@link Coordinator}, which holds them.
 *
 * <p>One per core, shared by all its runs. Not thread-safe: the core's single thread only.
 */
final class RunContext {
  /** The current placement: a run takes its key's replica set from it when it starts. */
  private Placement placement;

  private final CoreTimings timings;
  private final CoreConfig.Modes modes;
  private final boolean skipQuench;
  private final boolean dropTermClassification;
  private final Incarnation incarnation;
  private final CellStore store;
  private final RandomSource random;
  private final WarmKeys warm;
  private final LeaseState leases;
  private final LeaderReads leaderReads;
  private final PeerResponsiveness peers;
  private final CoreCounters counters;
  private final DeleteCompletion deletes;
  private final boolean learnerVotes;
  private final HandOffDrains handOffDrains;

  RunContext(
      CoreConfig config,
      CoreTimings timings,
      Incarnation incarnation,
      CellStore store,
      RandomSource random,
      LeaseState leases,
      LeaderReads leaderReads,
      PeerResponsiveness peers,
      CoreCounters counters,
      DeleteCompletion deletes,
      HandOffDrains handOffDrains) {
    this.placement = config.placement();
    this.timings = timings;
    this.modes = config.modes();
    this.skipQuench = config.broken(Sabotage.SKIP_QUENCH);
    this.dropTermClassification = config.broken(Sabotage.DROP_TERM_CLASSIFICATION);
    this.incarnation = incarnation;
    this.store = store;
    this.random = random;
    this.warm = new WarmKeys(config.warmKeysMax(), placement.rangeCount());
    this.leases = leases;
    this.leaderReads = leaderReads;
    this.peers = peers;
    this.counters = counters;
    this.deletes = deletes;
    this.learnerVotes = config.broken(Sabotage.LEARNER_VOTES);
    this.handOffDrains = handOffDrains;
  }

  // ---- Settings and identity -------------------------------------------------------------------

  CoreTimings timings() {
    return timings;
  }

  /** The voters of {@code key}'s range now, natural leader first. */
  List<Integer> replicasOf(Key key) {
    return placement.replicasOf(key);
  }

  /** The learners of {@code key}'s range now. */
  List<Integer> learnersOf(Key key) {
    return placement.learnersOf(key);
  }

  /** The ring version of the current placement. */
  long ringVersion() {
    return placement.ringVersion();
  }

  /** The sabotage {@link Sabotage#LEARNER_VOTES} (tests only). */
  boolean learnerVotes() {
    return learnerVotes;
  }

  /**
   * Runs started from now on use {@code change.next()}; warm keys whose range's voters move more
   * than one node away from their ballot's prepare set turn cold ({@link WarmKeys}).
   */
  void placementChanged(PlacementChange change) {
    placement = change.next();
    warm.placementChanged(change);
  }

  /** The sabotage {@link Sabotage#SKIP_QUENCH} (tests only). */
  boolean skipQuench() {
    return skipQuench;
  }

  int nodeId() {
    return incarnation.nodeId();
  }

  RoundId newRoundId() {
    return incarnation.newRoundId();
  }

  Ballot ballot(long round) {
    return incarnation.ballot(round);
  }

  /** Whether {@code ballot} is this incarnation's own. */
  boolean issued(Ballot ballot) {
    return incarnation.issued(ballot);
  }

  /** A uniform back-off below {@code backoffMax}, from the injected random source. */
  long backoffNanos() {
    return random.nextLong(timings.backoffMaxNanos());
  }

  // ---- Local cell and warm state ---------------------------------------------------------------

  /**
   * This node's durable cell of {@code key} (null: none).
   *
   * @throws CellStoreException if the key cannot be read
   */
  Cell localCell(Key key) {
    return store.get(key);
  }

  WarmKeys.Warm warm(Key key) {
    return warm.get(key);
  }

  /**
   * Remembers that a round of {@code key} with {@code ballot}, prepared at the voters {@code
   * preparedAt}, got {@code q} acks and chose {@code chosen}. Not if the key's voters are now more
   * than one node away from {@code preparedAt} (or it is empty: a round whose prepare set is not
   * known): a majority of those voters may miss the one that promised the ballot.
   */
  void rememberWarm(Key key, List<Integer> preparedAt, Ballot ballot, AcceptedValue chosen) {
    int range = placement.rangeOf(key);
    if (!preparedAt.isEmpty() && WarmKeys.usableAt(preparedAt, placement.replicas(range))) {
      warm.remember(key, range, ballot, chosen, preparedAt);
    }
  }

  void forgetWarm(Key key) {
    warm.forget(key);
  }

  /**
   * Whether this warm CAS must prepare anyway ({@link CoreConfig.Modes#forcedColdCasShare}). Draws
   * from the random source only when the share is set, so default runs replay unchanged.
   */
  boolean forceCold() {
    double share = modes.forcedColdCasShare();
    return share > 0 && random.nextLong(FORCE_COLD_SCALE) < Math.round(share * FORCE_COLD_SCALE);
  }

  private static final long FORCE_COLD_SCALE = 1_000_000;

  // ---- The range's lease (docs/DESIGN.md "Lease invariant")
  // -----------------------------------------

  /** See {@link LeaseState#mayCoordinate}. */
  boolean mayCoordinate(Now now, Key key) {
    return leases.mayCoordinate(now, key);
  }

  /** The term a prepare or accept of {@code key} carries (0 with leases off). */
  long termFor(Key key) {
    return leases.termFor(key);
  }

  /** See {@link LeaseState#waitsInVain}. */
  boolean waitsInVain(Now now, Key key) {
    return leases.waitsInVain(now, key);
  }

  /** A replica answered a round of {@code key} with a persisted term {@code term}. */
  void termSeen(Now now, Key key, long term) {
    leases.superseded(now, key, term);
  }

  // ---- Leader-only reads ----------------------------------------------------------------------

  /** See {@link LeaderReads#tryServe}. */
  Outcome serveLocally(Now now, Key key) {
    return leaderReads.tryServe(now, key);
  }

  /** See {@link LeaderReads#onlyCatchingUp}. */
  boolean onlyCatchingUp(Now now, Key key) {
    return leaderReads.onlyCatchingUp(now, key);
  }

  /** See {@link LeaderReads#answerFromLocalCell}. */
  Outcome answerFromLocalCell(Now now, Key key, Version expected, IdempotencyHint hint) {
    return leaderReads.answerFromLocalCell(now, key, expected, hint);
  }

  /**
   * See {@link LeaderReads#acceptSent}; with hand-offs on, the key joins the range's written keys
   * of the current term ({@link HandOffDrains#acceptSent}).
   */
  void acceptSent(Key key, long requestId) {
    leaderReads.acceptSent(key);
    if (leases.enabled()) {
      handOffDrains.acceptSent(key, leases.rangeOf(key), leases.termFor(key), requestId);
    }
  }

  /** See {@link LeaseState#floorFor}. */
  long floorFor(Key key, long term) {
    return leases.enabled() ? leases.floorFor(key, term) : 0;
  }

  /**
   * A run saw {@code accepted} for {@code key} (its local cell or a replica's reply). If this node
   * holds a term of the key's range whose predecessor's record it learned, and the value's ballot
   * is one of that term's, the key joins the term's predecessor keys: its shipment names it with
   * its local chosen value (docs/PROTOCOL.md "A killed holder: covering its term").
   */
  void sawAccepted(Key key, AcceptedValue accepted) {
    if (accepted == null || !handOffDrains.enabled() || dropTermClassification) {
      return;
    }
    TermRecord predecessor = leases.predecessorOf(key);
    if (predecessor != null && predecessor.covers(accepted.accepted())) {
      handOffDrains.classified(key, leases.rangeOf(key), leases.termFor(key));
    }
  }

  /** See {@link LeaderReads#prepared}. */
  void prepared(Key key) {
    leaderReads.prepared(key);
  }

  /** See {@link LeaderReads#learnedChosen}. */
  void learnedChosen(Key key, AcceptedValue value, boolean ownRound) {
    leaderReads.learnedChosen(key, value, ownRound);
  }

  // ---- Peers, counters, deletes ----------------------------------------------------------------

  /** See {@link PeerResponsiveness#suspected}. */
  boolean suspected(int peer, long monoNanos) {
    return peers.suspected(peer, monoNanos);
  }

  /** See {@link PeerResponsiveness#requestSent}. */
  void requestSent(int peer, long monoNanos) {
    peers.requestSent(peer, monoNanos);
  }

  CoreCounters counters() {
    return counters;
  }

  /** See {@link DeleteCompletion#deleteChosen}. */
  void deleteChosen(
      Now now, Key key, List<Integer> members, long ringVersion, Round round, List<Effect> out) {
    deletes.deleteChosen(now, key, members, ringVersion, round, out);
  }
}
