package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.consensus.core.Input;
import java.util.HashMap;
import java.util.Map;

/**
 * Hand-off instead of a scan (docs/PROTOCOL.md) as the holder's lease agent ({@link LeaseAgents})
 * drives it: {@link Input.HandOff} to its core, a drain timeout, and on {@link
 * Effect.HandOffShipped} the shipment streamed to the successor ({@link Input.ImportShipment}),
 * whose acknowledgement makes the agent release, mark and leave as a hand-back does.
 */
final class HandOffDelivery {
  private final Simulation sim;
  private final SimRandom random;
  private final CoordinationService service;
  private final LeaseAgents agents;

  /** Per node and range: the successor of a hand-off whose drain the agent started. */
  private final Map<Long, Integer> pendingHandOff = new HashMap<>();

  private long handOffsStarted;
  private long handOffsShipped;
  private long handOffsTimedOut;
  private long handOffsDeclined;

  HandOffDelivery(
      Simulation sim, SimRandom random, CoordinationService service, LeaseAgents agents) {
    this.sim = sim;
    this.random = random;
    this.service = service;
    this.agents = agents;
  }

  long handOffsStarted() {
    return handOffsStarted;
  }

  long handOffsShipped() {
    return handOffsShipped;
  }

  long handOffsTimedOut() {
    return handOffsTimedOut;
  }

  /** See {@link LeaseService#handOff}. */
  void handOff(int range, int successor, long drainTimeoutNanos) {
    int h = service.holder(range);
    if (h < 0 || h == successor) {
      return;
    }
    int incarnation = service.holderIncarnation(range);
    service.reply(
        h, incarnation, () -> startHandOff(h, incarnation, range, successor, drainTimeoutNanos));
  }

  private void startHandOff(
      int node, int incarnation, int range, int successor, long drainTimeoutNanos) {
    long t = agents.term(node, range);
    long k = LeaseAgents.key(node, range);
    if (t == 0 || pendingHandOff.containsKey(k) || agents.releasing(node, range)) {
      return; // not held any more, or a hand-over of it is under way
    }
    pendingHandOff.put(k, successor);
    handOffsStarted++;
    sim.input(node, new Input.HandOff(range, t));
    sim.schedule(
        drainTimeoutNanos,
        () -> {
          if (sim.isUp(node)
              && sim.incarnation(node) == incarnation
              && pendingHandOff.get(k) != null
              && agents.term(node, range) == t) {
            pendingHandOff.remove(k);
            handOffsTimedOut++;
            sim.onNode(node, () -> agents.release(node, range, successor));
          }
        });
  }

  long handOffsDeclined() {
    return handOffsDeclined;
  }

  /**
   * The core declined (too many keys written): release plainly, in the node's next step (not inside
   * the step that declined).
   */
  void declined(int node, int range) {
    Integer successor = pendingHandOff.remove(LeaseAgents.key(node, range));
    if (successor != null) {
      handOffsDeclined++;
      int incarnation = sim.incarnation(node);
      sim.schedule(
          0,
          () -> {
            if (sim.isUp(node) && sim.incarnation(node) == incarnation) {
              sim.onNode(node, () -> agents.release(node, range, successor));
            }
          });
    }
  }

  /** The core shipped: stream it, and release once the successor has it. Runs in the node. */
  void shipped(int node, HandOffShipment s) {
    Integer successor = pendingHandOff.remove(LeaseAgents.key(node, s.range()));
    if (successor == null) {
      return; // the agent gave the hand-off up already
    }
    handOffsShipped++;
    agents.termEnded(node, s.range()); // the core ended the term: no renewal of it any more
    int incarnation = sim.incarnation(node);
    long streaming =
        service.latencyNanos() + 1000L * random.between(0, 3_000); // tables take a while
    sim.schedule(
        streaming,
        () -> {
          if (sim.isUp(successor)) {
            sim.input(successor, new Input.ImportShipment(s));
          }
          // The successor's acknowledgement, then the release (lost with a crashed holder: its
          // session expires and the service grants the range anew).
          sim.schedule(
              service.latencyNanos(),
              () -> {
                if (sim.isUp(node) && sim.incarnation(node) == incarnation) {
                  sim.onNode(node, () -> agents.releaseTerm(node, s.range(), s.term(), successor));
                }
              });
        });
  }
}
