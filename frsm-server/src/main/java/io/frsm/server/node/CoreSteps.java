package io.frsm.server.node;

import io.frsm.consensus.core.CellStoreException;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.NodeCore;
import io.frsm.consensus.core.Now;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.RefusedInputException;
import io.frsm.consensus.core.ShardRouting;
import io.frsm.lsm.LsmEngine;
import io.frsm.store.LsmPersister;
import io.frsm.transport.PeerTransport;
import java.util.List;
import java.util.function.Consumer;

/**
 * How a {@link CoreDriver} steps its core with one input and carries out the effects the core
 * returns, in their order and without blocking: {@code Persist} to the {@link LsmPersister}, {@code
 * Send} to the peer transport (or, to this node itself, back into the driver's queue), {@code
 * Reply} to the caller's future, the ring and release answers to their waiters, and the quorum
 * reports to the range leadership. Which failures of a step are contained to one input and which
 * are thrown on (fatal to the driver) is decided here; the driver's loop decides what a thrown one
 * does. Loop thread only.
 */
final class CoreSteps {
  private static final System.Logger LOG = System.getLogger(CoreSteps.class.getName());

  private final int nodeId;
  private final ShardRouting routing;
  private final int shard;
  private final NodeCore core;
  private final LsmEngine engine;
  private final LsmPersister persister;
  private final PeerTransport transport;
  private final PeerMessageCounts peerMessages;
  private final RangeQuorums quorums;
  private final ContainedFailures contained;
  private final OpenOperations open;
  private final PendingReleases releases;
  private final PendingHandOffs handOffs;
  private final RingCalls ring;

  /** Queues a message the core sent this node itself, as a peer message is queued. */
  private final Consumer<Input.Receive> toSelf;

  /** Keeps the durable hand-off bases; null: none are kept (every restart scans). */
  private volatile HandOffBaseKeeper bases;

  CoreSteps(
      int nodeId,
      ShardRouting routing,
      int shard,
      NodeCore core,
      LsmEngine engine,
      LsmPersister persister,
      PeerTransport transport,
      PeerMessageCounts peerMessages,
      RangeQuorums quorums,
      ContainedFailures contained,
      OpenOperations open,
      PendingReleases releases,
      PendingHandOffs handOffs,
      RingCalls ring,
      Consumer<Input.Receive> toSelf) {
    this.nodeId = nodeId;
    this.routing = routing;
    this.shard = shard;
    this.core = core;
    this.engine = engine;
    this.persister = persister;
    this.transport = transport;
    this.peerMessages = peerMessages;
    this.quorums = quorums;
    this.contained = contained;
    this.open = open;
    this.releases = releases;
    this.handOffs = handOffs;
    this.ring = ring;
    this.toSelf = toSelf;
  }

  /** From now on the durable hand-off bases are kept by {@code keeper}. Before the core starts. */
  void keepHandOffBases(HandOffBaseKeeper keeper) {
    this.bases = keeper;
  }

  /**
   * Steps one client operation; what the core throws on it fails that operation, not the node.
   *
   * <p>Why that is safe: a refusal ({@link RefusedInputException}) comes before the core changed
   * anything, so the answer "not executed" is exact. Any other exception can only have left the
   * soft state of the operation's own run behind: a client request reaches the coordinator, never
   * the acceptor, so its step emits no persist, and durable Paxos state (what safety rests on) is
   * untouched; the step's other effects are dropped, which Paxos tolerates as lost messages. The
   * run may still act later, so a mutation's answer is "outcome unknown" (resolve with a fence), a
   * get's "not executed". Storage failures ({@link CellStoreException}, or any failure once the
   * engine is no longer open) and {@link Error}s stay fatal: they say nothing about this one
   * operation (CoreShardsIT kills the engine under a client operation).
   */
  void stepClientOperation(long requestId, OpenOperations.Call s) {
    List<Effect> effects;
    try {
      effects =
          core.step(now(), new Input.ClientRequest(requestId, s.operation(), s.invokedAtMicros()));
    } catch (CellStoreException storage) {
      throw storage;
    } catch (RefusedInputException refused) {
      operationFailed(
          requestId,
          new Outcome.NotExecuted("refused by the core: " + refused.getMessage()),
          refused,
          false);
      return;
    } catch (RuntimeException e) {
      if (!engine.isOpen()) {
        throw e; // not this operation's fault: the store is gone, which is fatal
      }
      operationFailed(
          requestId,
          OpenOperations.lost(s.operation(), "node " + nodeId + " failed on this operation: " + e),
          e,
          true);
      return;
    }
    carryOut(effects);
  }

  private void operationFailed(long requestId, Outcome answer, RuntimeException e, boolean stack) {
    contained.operationFailed(answer, e, stack);
    open.answer(requestId, CoreAnswer.of(answer));
  }

  /**
   * Steps one peer message; one the core refuses (a field outside {@code InputBounds}, before it
   * changed anything) is dropped, as the network may drop any message. Other exceptions are fatal:
   * the acceptor may have half-updated a key's lane.
   */
  void stepPeerMessage(Input.Receive receive) {
    List<Effect> effects;
    try {
      effects = core.step(now(), receive);
    } catch (RefusedInputException refused) {
      contained.peerMessageRefused(receive.from(), refused);
      return;
    }
    carryOut(effects);
  }

  void step(Input input) {
    if (input instanceof Input.PlacementChanged changed) {
      List<Effect> effects;
      try {
        effects = core.step(now(), changed);
      } catch (IllegalArgumentException refused) {
        // The core changed nothing (Input.PlacementChanged): the ring follower logs and retries.
        ring.refused(changed.next().ringVersion(), refused);
        return;
      }
      carryOut(effects);
      return;
    }
    if (input instanceof Input.ImportShipment imported) {
      // A peer's shipment: numbers outside InputBounds are refused before the core changed
      // anything, like a peer message's; the range then scans.
      carryOut(stepOrRefuse(imported, "hand-off shipment", imported.shipment().range(), List.of()));
      return;
    }
    if (input instanceof Input.RestoreBase restore) {
      // Read from a file: a number outside InputBounds (a range the ring no longer has) is
      // refused before the core changed anything; the record goes and the range scans.
      List<Effect> dropRecord = List.of(new Effect.BaseDropped(restore.range()));
      carryOut(stepOrRefuse(restore, "hand-off base record", restore.range(), dropRecord));
      return;
    }
    if (input instanceof Input.HandOff handOff) {
      List<Effect> effects = core.step(now(), handOff);
      // Before the effects, so the agent hears of the drain's size before any shipment of it.
      int keys = core.handOffDrainKeys(handOff.range(), handOff.term());
      if (keys >= 0) {
        handOffs.begun(handOff.range(), handOff.term(), keys);
      }
      carryOut(effects);
      return;
    }
    carryOut(core.step(now(), input));
  }

  /**
   * Steps a range's hand-off input ({@code what}: a shipment, a base record); one the core refuses
   * ({@link RefusedInputException}: before it changed anything) is logged, and {@code onRefusal} is
   * carried out instead.
   */
  private List<Effect> stepOrRefuse(Input input, String what, int range, List<Effect> onRefusal) {
    try {
      return core.step(now(), input);
    } catch (RefusedInputException refused) {
      LOG.log(
          System.Logger.Level.WARNING,
          "node {0}: {1} of range {2} refused: {3}",
          nodeId,
          what,
          range,
          refused.getMessage());
      return onRefusal;
    }
  }

  private void carryOut(List<Effect> effects) {
    List<Effect.QuorumReachability> quorumReports = null;
    for (Effect effect : effects) {
      if (effect instanceof Effect.Persist p) {
        persister.persist(p);
      } else if (effect instanceof Effect.Send s) {
        if (s.to() == nodeId) {
          // A core only ever speaks of its own ranges' keys, so its own messages come back to it.
          if (routing.ofKey(s.message().key()) != shard) {
            throw new IllegalStateException(
                "shard " + shard + " sent itself a message owned by another shard: " + s.message());
          }
          toSelf.accept(new Input.Receive(nodeId, s.message()));
        } else {
          peerMessages.sent(s.to());
          transport.send(s.to(), s.message());
        }
      } else if (effect instanceof Effect.Reply r) {
        open.answer(r.requestId(), new CoreAnswer(r.outcome(), r.readMode()));
      } else if (effect instanceof Effect.LeaseReleased l) {
        releases.answered(l.range(), l.term(), l.clean());
      } else if (effect instanceof Effect.HandOffShipped shipped) {
        handOffs.shipped(shipped.shipment());
      } else if (effect instanceof Effect.HandOffDeclined d) {
        handOffs.declined(d.range(), d.term(), d.writtenKeys());
      } else if (effect instanceof Effect.BaseReached b) {
        HandOffBaseKeeper k = bases;
        if (k != null) {
          k.reached(b); // flush, then the record, off this thread
        }
      } else if (effect instanceof Effect.BaseDropped d) {
        HandOffBaseKeeper k = bases;
        if (k != null) {
          k.dropped(d.range()); // now: before this step's term persist and accepts
        }
      } else if (effect instanceof Effect.RingInstalled i) {
        ring.installed(i.ringVersion());
      } else if (effect instanceof Effect.RangeSettled settled) {
        ring.settled(settled.range(), settled.ringVersion(), settled.settled());
      } else if (effect instanceof Effect.RingBehind behind) {
        ring.behind(behind.ringVersion());
      } else if (effect instanceof Effect.QuorumReachability q) {
        if (quorumReports == null) {
          quorumReports = new java.util.ArrayList<>();
        }
        quorumReports.add(q);
      }
    }
    if (quorumReports != null) {
      quorums.report(quorumReports); // leadership acts on its own thread: no ZooKeeper I/O here
    }
  }

  private static Now now() {
    return new Now(WallClock.nowMicros(), System.nanoTime());
  }
}
