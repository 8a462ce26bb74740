package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One node's per-key Paxos as a pure, deterministic state machine: {@link #step} takes an input and
 * returns the effects to carry out, in order (etcd-raft style). No threads, clocks, I/O or
 * randomness inside: time comes with each input, randomness from the injected {@link RandomSource},
 * durable state through the synchronous {@link CellStore} read seam.
 *
 * <p>The driver must: carry out effects in order; feed {@link Input.PersistDone} once a {@link
 * Effect.Persist} is durable (never before); deliver {@link Effect.Send}s to this node back as
 * {@link Input.Receive}; tick regularly (timeouts are only noticed on inputs). After a crash it
 * builds a new core with a higher {@code boot} (persisted before the node serves), so no ballot of
 * the old incarnation is reused.
 *
 * <p>Not thread-safe: one input at a time.
 */
public final class NodeCore {
  private final Acceptor acceptor;
  private final Coordinator coordinator;
  private final RunContext runContext;
  private final LeaseState leases;
  private final LeaderReads leaderReads;

  /** Which written keys a hand-off's drain settles ({@link LeaderReads#drainMustSettle}). */
  private final java.util.function.Predicate<Key> drainMustSettle;

  private final DeleteCompletion deletes;
  private final PeerResponsiveness peers;
  private final RangeSettles settles;
  private final HandOffDrains handOffDrains;
  private final HandOffBases handOffBases;
  private final HandOffImports handOffImports;
  private final boolean importWithoutRelease;
  private final CoreCounters counters = new CoreCounters();

  /** The highest ring version a {@link Message.StaleRing} showed above this node's own. */
  private long ringBehindReported;

  /** The scans' quorum reads go to the coordinator's per-key queues like clients' operations. */
  private final LeaseState.ScanReads scanReads;

  private final Incarnation incarnation;

  /** Null unless the driver turned the quorum watch on ({@link #watchQuorums}). */
  private QuorumWatch quorumWatch;

  private final LongKeyedMap<Cell> chosenPersists = new LongKeyedMap<>();
  private long lastMonoNanos = Long.MIN_VALUE;

  /** The current placement: the config's, until an {@link Input.PlacementChanged}. */
  private Placement placement;

  /**
   * Wires the core's parts, each owning its state: the {@link Acceptor}; the {@link Coordinator}
   * and its runs, which reach the rest only through a {@link RunContext}; range leases and scans
   * ({@link LeaseState}); leader-only reads ({@link LeaderReads}); delete completion ({@link
   * DeleteCompletion}). {@link #step} routes each input to the parts it concerns; no part holds
   * another that holds it.
   */
  public NodeCore(int nodeId, int boot, CoreConfig config, CellStore store, RandomSource random) {
    if (nodeId < 0 || boot < 0) {
      throw new IllegalArgumentException("nodeId and boot must be >= 0");
    }
    Objects.requireNonNull(config);
    Objects.requireNonNull(store);
    Objects.requireNonNull(random);
    CoreTimings timings = CoreTimings.of(config);
    Incarnation incarnation = new Incarnation(nodeId, boot);
    this.incarnation = incarnation;
    this.acceptor = new Acceptor(store, config, counters, nodeId);
    this.leases = new LeaseState(config, timings, incarnation, counters);
    this.leaderReads =
        new LeaderReads(
            leases,
            store,
            config.modes().leaderOnlyReads(),
            config.broken(Sabotage.SERVE_READ_WITHOUT_LEASE_CHECK));
    this.leases.reportScannedKeysTo(
        new RangeScan.Progress() {
          @Override
          public void keyRead(io.frsm.cell.Key key) {
            leaderReads.scanRead(key);
          }

          @Override
          public void keySkipped(io.frsm.cell.Key key) {
            leaderReads.scanSkipped(key);
          }
        });
    this.deletes =
        new DeleteCompletion(incarnation, timings.roundTimeoutNanos(), config.warmKeysMax());
    this.peers = new PeerResponsiveness(timings.hedgeNanos());
    this.placement = config.placement();
    this.ringBehindReported = placement.ringVersion();
    this.settles =
        new RangeSettles(
            incarnation,
            timings.roundTimeoutNanos(),
            config.placement(),
            new SettlePace(config.settleKeysPerSecond()),
            counters);
    this.handOffDrains = new HandOffDrains(config, timings.roundTimeoutNanos(), store);
    this.drainMustSettle =
        config.broken(Sabotage.DRAIN_IGNORES_OPEN_ACCEPTS)
            ? leaderReads::localNotChosen
            : leaderReads::drainMustSettle;
    this.handOffBases = new HandOffBases(config);
    this.handOffImports = new HandOffImports(config, store, handOffBases);
    this.importWithoutRelease = config.broken(Sabotage.IMPORT_WITHOUT_RELEASE);
    this.runContext =
        new RunContext(
            config,
            timings,
            incarnation,
            store,
            random,
            leases,
            leaderReads,
            peers,
            counters,
            deletes,
            handOffDrains);
    this.coordinator = new Coordinator(runContext);
    this.scanReads = coordinator::submit;
  }

  /**
   * Carries out one input and returns its effects, in order.
   *
   * @throws RefusedInputException if a client request or peer message carries a number outside
   *     {@link InputBounds} (or a client request names a reserved key); nothing changed
   * @throws IllegalArgumentException if monotonic time went backwards or a persist completion names
   *     no persist in flight (driver bugs)
   */
  public List<Effect> step(Now now, Input input) {
    // First, before any state changes: a refused input leaves the core as it was.
    InputBounds.check(input, placement);
    if (now.monoNanos() < lastMonoNanos) {
      throw new IllegalArgumentException(
          "monotonic time went backwards: " + now.monoNanos() + " < " + lastMonoNanos);
    }
    lastMonoNanos = now.monoNanos();
    List<Effect> out = new ArrayList<>();
    if (input instanceof Input.ClientRequest request) {
      submit(now, request, out);
    } else if (input instanceof Input.Receive receive) {
      receive(now, receive, out);
    } else if (input instanceof Input.Tick) {
      leases.tick(now, scanReads, out);
      settles.tick(now, scanReads, out);
      deletes.tick(now, out);
      coordinator.tick(now, out);
      if (handOffDrains.enabled()) {
        handOffTick(now, out);
      }
    } else if (input instanceof Input.PersistDone done) {
      persistDone(now, done, out);
    } else if (input instanceof Input.TermGranted granted) {
      handOffBases.granted(granted.range(), out); // the durable base goes before the term's persist
      leases.granted(now, granted, out);
    } else if (input instanceof Input.LeaseRenewed renewed) {
      leases.renewed(now, renewed);
    } else if (input instanceof Input.LeaseLost lost) {
      leases.lost(now, lost);
    } else if (input instanceof Input.ReleaseLease release) {
      leases.release(now, release, out);
    } else if (input instanceof Input.Candidacy candidacy) {
      leases.candidacy(candidacy);
    } else if (input instanceof Input.PlacementChanged changed) {
      placementChanged(now, changed, out);
    } else if (input instanceof Input.SettleRange settle) {
      settles.settle(now, settle, scanReads, out);
    } else if (input instanceof Input.HandOff handOff) {
      beginHandOff(now, handOff, out);
    } else if (input instanceof Input.RestoreBase restore) {
      handOffBases.restore(restore, leases.term(restore.range()), out);
    } else if (input instanceof Input.ImportShipment imported) {
      for (Message.Commit commit : handOffImports.importShipment(imported.shipment())) {
        acceptor.receive(now, incarnation.nodeId(), commit, out);
      }
    }
    if (quorumWatch != null) {
      if (input instanceof Input.Tick) {
        quorumWatch.tick(now, out); // after the runs' ticks: their resends count as sent now
      }
      quorumWatch.sent(now, out);
    }
    if (leases.enabled() || settles.busy()) {
      takeScanReplies(now, out);
    }
    if (handOffImports.hasImports()) {
      // At the end of every step, not only on ticks: the term persist that completes in this step
      // starts the scan, which the import then spares at once.
      handOffImports.enterImported(now, leases);
    }
    if (handOffDrains.enabled()) {
      // After the scan replies and imports of this step: an entry in this step is seen here.
      for (long[] e : leases.takeEntries()) {
        int range = (int) e[0];
        handOffBases.enteredLeaderOnly(range, e[1], leaderReads.catchingUpOf(range, placement));
      }
      handOffBases.entryTick(leaderReads::stillCatchingUpTo, leases, out);
    }
    if (leases.enabled()) {
      watchChosenPersists(out);
      leaderReads.endOfStep();
      leases.publish();
    }
    return out;
  }

  /**
   * {@link Input.HandOff}: only a holder of the named term that has not given it up drains; a
   * shipment made at once (a sabotage) is shipped in this step.
   */
  private void beginHandOff(Now now, Input.HandOff handOff, List<Effect> out) {
    if (!handOffDrains.enabled() || !leases.stillHolds(handOff.range(), handOff.term())) {
      return;
    }
    HandOffDrains.Plan plan =
        handOffDrains.plan(handOff.range(), handOff.term(), handOff.maxKeys(), drainMustSettle);
    if (plan == null) {
      return; // draining already
    }
    if (plan.declinedKeys() >= 0) {
      // Too many keys to settle within the lease, or to ship: answered at once, nothing stops.
      out.add(new Effect.HandOffDeclined(handOff.range(), handOff.term(), plan.declinedKeys()));
      return;
    }
    HandOffShipment at =
        handOffDrains.begin(now, handOff.range(), handOff.term(), plan, scanReads, out);
    if (at != null) {
      ship(now, at, out);
    }
  }

  private void handOffTick(Now now, List<Effect> out) {
    for (HandOffShipment s :
        handOffDrains.tick(
            now, leases, range -> leaderReads.catchingUpIn(range, placement), scanReads, out)) {
      ship(now, s, out);
    }
  }

  /**
   * The drain is done: the shipment goes out and the term ends here in the same step (nothing of
   * the term can be chosen after the shipment's values), unless sabotaged.
   */
  private void ship(Now now, HandOffShipment shipment, List<Effect> out) {
    // Asked before the term ends below: whether this term's scan covered its predecessor's.
    HandOffShipment s =
        shipment.covering(
            handOffDrains.predecessorKeysKept(shipment.range(), shipment.term())
                ? leases.coveredTerm(shipment.range(), shipment.term())
                : 0);
    handOffBases.shippedFrom(s.range(), s.term(), leases.leaderOnlyIn(s.range(), s.term()), out);
    out.add(new Effect.HandOffShipped(s));
    if (!importWithoutRelease) {
      leases.release(now, new Input.ReleaseLease(s.range(), s.term()), out);
    }
  }

  /**
   * A newer ring version is installed in every part at once, within this step: from its end the
   * acceptor refuses older rounds of the changed ranges, and the answer says so. An older or equal
   * placement changes nothing and is not answered.
   */
  private void placementChanged(Now now, Input.PlacementChanged changed, List<Effect> out) {
    PlacementChange change = PlacementChange.between(placement, changed.next());
    if (change == null) {
      return;
    }
    placement = change.next();
    acceptor.placementChanged(change);
    runContext.placementChanged(change);
    leases.placementChanged(now, change, out);
    deletes.placementChanged(change);
    handOffBases.placementChanged(change, out);
    handOffImports.placementChanged(change);
    handOffDrains.placementChanged(change);
    settles.placementChanged(change, out);
    if (quorumWatch != null) {
      quorumWatch.placementChanged(placement);
    }
    out.add(new Effect.RingInstalled(placement.ringVersion()));
  }

  /**
   * A client operation on a key its range's scan has not settled pulls the key forward first
   * (docs/PROTOCOL.md "Hot keys first"): the scan read is queued ahead of the operation, so the
   * operation (and every later one on the key) finds the key settled.
   *
   * <p>REQUIRES: {@link InputBounds#check} passed (key not reserved, request id >= 0).
   */
  private void submit(Now now, Input.ClientRequest request, List<Effect> out) {
    if (handOffDrains.refuses(placement.rangeOf(request.operation().key()))) {
      // Draining for a hand-off: the range's operations go to the successor.
      out.add(
          new Effect.Reply(
              request.requestId(),
              new Outcome.NotExecuted(
                  "node " + incarnation.nodeId() + " hands the key's range off", true)));
      return;
    }
    leases.pullForward(now, request.operation().key(), scanReads, out);
    coordinator.submit(now, request, out);
  }

  /**
   * Requests and commits go to the acceptor; replies on a range's reserved term key to the leases;
   * other replies to a delete completion if one owns their round, else to the key's run.
   */
  private void receive(Now now, Input.Receive receive, List<Effect> out) {
    if (quorumWatch != null && receive.message() instanceof Message.Reply) {
      quorumWatch.replied(now, receive.from());
    }
    if (receive.message() instanceof Message.StaleRing stale) {
      counters.staleRingReply();
      if (stale.ringVersion() > Math.max(ringBehindReported, placement.ringVersion())) {
        ringBehindReported = stale.ringVersion();
        out.add(new Effect.RingBehind(stale.ringVersion()));
      }
    }
    if (!(receive.message() instanceof Message.Reply reply)) {
      acceptor.receive(now, receive.from(), receive.message(), out);
    } else if (RangeTerm.isReserved(reply.key()) && settles.owns(reply)) {
      if (reply instanceof Message.KeysListed listed) {
        settles.onListed(now, receive.from(), listed, scanReads, out);
      } // a StaleRing: that replica has not installed the settle's version; the others may list
    } else if (RangeTerm.isReserved(reply.key())) {
      leases.onTermReply(now, receive.from(), reply, scanReads, out);
    } else {
      peers.heardFrom(receive.from());
      if (!deletes.onReply(now, receive.from(), reply, out)) {
        coordinator.onReply(now, receive.from(), reply, out);
      }
    }
  }

  private void persistDone(Now now, Input.PersistDone done, List<Effect> out) {
    if (!acceptor.persistDone(now, done.persistId(), out)) {
      throw new IllegalArgumentException("unknown persist id " + done.persistId());
    }
    Cell chosen = chosenPersists.remove(done.persistId());
    if (chosen != null) {
      leaderReads.localDurable(chosen.key(), chosen.accepted());
      coordinator.localCaughtUp(now, chosen.key(), out);
    }
  }

  /**
   * Lets a reader outside the core's thread serve the leader-only reads this core would serve: the
   * core tells {@code gate} which keys are unsettled and until when each range is servable
   * (docs/PROTOCOL.md "Leader-only reads on the caller's thread"). Call before the first step.
   * Returns false, and tells the gate nothing, when this core serves no leader-only reads (leases
   * off, leader-only reads off, or a sabotage of the lease check in tests).
   */
  public boolean publishReadsTo(ReadGate gate) {
    if (!leases.enabled() || !leaderReads.enabledOutsideCore()) {
      return false;
    }
    if (lastMonoNanos != Long.MIN_VALUE) {
      throw new IllegalStateException("publishReadsTo must be called before the first step");
    }
    leaderReads.publishTo(gate);
    leases.publishTo(gate);
    return true;
  }

  /**
   * Turns on the quorum watch (docs/PROTOCOL.md "Step-down and the quorum watch"): from now on the
   * core probes peers that have not replied for {@code unreachableAfter / 4} and reports, as {@link
   * Effect.QuorumReachability}, each change of whether this node reaches a quorum of the replicas
   * of a range that {@code ownsRange} accepts and this node replicates. A peer counts as
   * unreachable once a request to it has been unanswered for {@code unreachableAfter}. Call before
   * the first step; a core that never calls it behaves exactly as before (the simulator's traces).
   *
   * @param ownsRange the ranges whose inputs reach this core (all of them for a single core; a core
   *     shard's own ones otherwise, see {@link ShardRouting#ofRange}): probes read the term cell of
   *     such a range, so that their replies come back to this core
   */
  public void watchQuorums(
      java.time.Duration unreachableAfter, java.util.function.IntPredicate ownsRange) {
    if (lastMonoNanos != Long.MIN_VALUE) {
      throw new IllegalStateException("watchQuorums must be called before the first step");
    }
    if (quorumWatch != null) {
      throw new IllegalStateException("the quorum watch is on already");
    }
    quorumWatch =
        new QuorumWatch(
            incarnation.nodeId(),
            unreachableAfter.toNanos(),
            Objects.requireNonNull(ownsRange),
            incarnation,
            placement);
  }

  /**
   * Answers of the core's own scan and settle reads (negative request ids) go to the scan or
   * settle, not the driver; they may start more reads, whose answers may come at once, hence the
   * loop.
   */
  private void takeScanReplies(Now now, List<Effect> out) {
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i) instanceof Effect.Reply reply && reply.requestId() < 0) {
        out.remove(i--);
        if (HandOffDrains.ownsRead(reply.requestId())) {
          handOffDrains.readDone(now, reply.requestId(), reply.outcome(), scanReads, out);
        } else if (RangeSettles.isSettleRead(reply.requestId())) {
          settles.readDone(now, reply.requestId(), reply.outcome(), scanReads, out);
        } else {
          leases.scanReadDone(now, reply.requestId(), reply.outcome(), scanReads, out);
        }
      }
    }
  }

  /**
   * Remembers the persists that write a chosen value, so that leader-only reads learn when the
   * local cell caught up with a value this node learned was chosen ({@link LeaderReads}).
   */
  private void watchChosenPersists(List<Effect> out) {
    // By index: an iterator per step was one of the core's larger allocations per operation.
    for (int i = 0, n = out.size(); i < n; i++) {
      Effect e = out.get(i);
      if (e instanceof Effect.Persist p
          && p.delta().accepted() != null
          && p.delta().accepted().chosen()) {
        chosenPersists.put(p.persistId(), p.delta());
      }
    }
  }

  /** Leader-only reads served so far (diagnostics and tests). */
  public long leaderOnlyReads() {
    return leaderReads.served();
  }

  /**
   * Range scans this core completed (each puts a range in leader-only mode for its term; lease
   * holders only; diagnostics and tests).
   */
  public long rangeScansCompleted() {
    return leases.scansCompleted();
  }

  /**
   * Voter changes through which a range of this core kept leader-only mode (docs/PROTOCOL.md "A
   * voter change in leader-only mode"), and of them those of more than one voter, which only a
   * sabotage keeps (diagnostics and tests).
   */
  public long[] leaderOnlyKeptThroughVoterChanges() {
    return new long[] {leases.keptLeaderOnly(), leases.keptAcrossMoreThanOne()};
  }

  /**
   * The written keys the drain of {@code range}'s term {@code term} began with (what a node-wide
   * drain budget counts), or -1 if no such drain runs: after an {@link Input.HandOff}, -1 means it
   * was declined or ignored, or the drain already shipped.
   */
  public int handOffDrainKeys(int range, long term) {
    return handOffDrains.drainKeys(range, term);
  }

  /** Hand-offs this core shipped (diagnostics and tests). */
  public long handOffsShipped() {
    return handOffDrains.shipped();
  }

  /**
   * Keys this core counted as written because a value carried its predecessor's ballots
   * (docs/PROTOCOL.md "A killed holder: covering its term"; diagnostics and tests).
   */
  public long handOffKeysClassified() {
    return handOffDrains.classified();
  }

  /** Hand-offs this core declined: the term wrote more keys than a drain takes. */
  public long handOffsDeclined() {
    return handOffDrains.declined();
  }

  /**
   * Ranges this core put in leader-only mode from an imported hand-off, without a scan (diagnostics
   * and tests).
   */
  public long handOffsEntered() {
    return handOffImports.entered();
  }

  /**
   * Entry bases this core reached (docs/PROTOCOL.md "A killed holder: covering its term", step 3):
   * each a {@link Effect.BaseReached} with {@code entry} (diagnostics and tests).
   */
  public long handOffEntryBasesReached() {
    return handOffBases.entryBasesReached();
  }

  /**
   * Of {@link #handOffsEntered}, the ranges whose import was taken on an entry base with a shipment
   * covering its term (step 4; diagnostics and tests).
   */
  public long handOffsEnteredOnEntryBase() {
    return handOffImports.enteredOnEntryBase();
  }

  /** Shipments this core refused to import (diagnostics and tests). */
  public long handOffsRefused() {
    return handOffImports.refused();
  }

  /** Durable bases taken at start ({@link Input.RestoreBase}) by this core. */
  public long handOffBasesRestored() {
    return handOffBases.restored();
  }

  /** Range settles this core completed (diagnostics and tests). */
  public long rangeSettlesCompleted() {
    return settles.settled();
  }

  /** The ring version this core installed. */
  public long ringVersion() {
    return placement.ringVersion();
  }

  /**
   * The operation counters so far, as a new snapshot. The one method of the core any thread may
   * call: the counters are stored for other threads to read ({@link CoreCounters}); a snapshot is
   * exact per counter, not atomic across them.
   */
  public CoreStats stats() {
    return counters.snapshot();
  }

  /** Keys with a client operation queued or running. */
  public int activeOperations() {
    return coordinator.activeOperations();
  }

  /** Keys whose acceptor waits for a persist. */
  public int keysAwaitingPersist() {
    return acceptor.busyKeys();
  }
}
