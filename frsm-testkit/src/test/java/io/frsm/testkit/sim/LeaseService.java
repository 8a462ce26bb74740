package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;

/**
 * The coordination service (ZooKeeper with Curator) as the simulator plays it, and each node's
 * lease agent (the driver thread that talks to it). docs/DESIGN.md "Lease invariant" rules 1–2:
 *
 * <ul>
 *   <li>Each range has a term. When the holder's session expires (no request heard for the session
 *       timeout) or a nemesis forces a handover, the service grants the range to another live
 *       session: the term goes up and the predecessor's lease generation is bumped in the same
 *       step. The winner hears {@link Input.TermGranted} after the reply latency; the predecessor
 *       is not told.
 *   <li>Every {@code L/4} each agent sends its renewals ({@code multi(check(generation))}, one per
 *       range it was granted, stamped with the node's monotonic time at sending) and a session
 *       heartbeat. A check that holds is answered {@link Input.LeaseRenewed}; a failed one {@link
 *       Input.LeaseLost}.
 *   <li>Connection states, as the node's LeaseKeeper reacts to Curator's: an agent that heard
 *       nothing from the service for two thirds of the session timeout is SUSPENDED: it stops
 *       sending renewals (heartbeats go on) and its leases run out by themselves, {@code L·(1−ρ)}
 *       after their last renewal's send time; the first answer after that is RECONNECTED: it renews
 *       at once. Silent for a session timeout more, it is LOST: it reports {@link Input.LeaseLost}
 *       for every range it holds and forgets their terms.
 *   <li>Step-down (the quorum watch; docs/PROTOCOL.md "Step-down and the quorum watch"): a core
 *       that reports a range's quorum unreachable ({@link Effect.QuorumReachability}) makes its
 *       agent hand the range over as a hand-back does (release through the core, mark if clean) to
 *       a replica the service chooses, and publish the range as unreachable in its ready marker:
 *       the service grants it to no node whose marker says so, until the core reports it reachable
 *       again.
 *   <li>A node cut from the service ({@link #cut}) neither reaches it nor hears from it.
 *   <li>A hand-back on purpose ({@link #handBack}): the holder's agent stops renewing, feeds {@link
 *       Input.ReleaseLease} to its core and, if the core answers clean, marks the term released
 *       (conditional on the term still being current) before it leaves the latch; the next grant
 *       tells the successor whether it found the mark ({@code noEarlierLease}).
 *   <li>The range's first term (term 1) has no predecessor: its grant says {@code noEarlierLease}
 *       too, as the nodes' ZooKeeper store does.
 * </ul>
 *
 * The agent runs inside the node's process: while the node pauses, it sends nothing, and replies
 * reach it only after the pause.
 *
 * <p>Membership changes: only a voter of the range in the newest published ring version joins its
 * latch (as the server's latch holds the range's replicas). When a version drops the holder from a
 * range's voters, the service grants the range to a live voter ({@link #ringChanged}) without
 * telling the old holder, exactly as a forced handover: the successor's wait covers the old lease.
 * Nodes added to the cluster get an agent ({@link #nodeAdded}).
 *
 * <p>The parts: {@link CoordinationService} (terms, latches, release marks, sessions, restarts; the
 * ready markers it holds, {@link ReadyMarkers}), {@link LeaseAgents} (each node's agent: its
 * renewal loop, connection states, step-down and hand-backs) and {@link HandOffDelivery} (hand-offs
 * with shipments). All draw from one random stream, in the order the events happen.
 */
public final class LeaseService {
  /** Room for nodes added by membership changes (ids are dense). */
  private static final int ADDED_NODES_MAX = 64;

  private final Simulation sim;
  private final CoordinationService service;
  private final LeaseAgents agents;
  private final HandOffDelivery handOffs;

  public LeaseService(Simulation sim, SimRandom random) {
    this.sim = sim;
    this.service = new CoordinationService(sim, random, sim.nodeCount() + ADDED_NODES_MAX);
    this.agents = new LeaseAgents(sim, random, service);
    this.handOffs = new HandOffDelivery(sim, random, service, agents);
    service.answer(agents);
    sim.setLeaseAgent(
        (node, effect) -> {
          if (effect instanceof Effect.LeaseReleased released) {
            agents.coreReleased(node, released);
          } else if (effect instanceof Effect.QuorumReachability q) {
            agents.quorumChanged(node, q.range(), q.reachable());
          } else if (effect instanceof Effect.HandOffShipped shipped) {
            handOffs.shipped(node, shipped.shipment());
          } else if (effect instanceof Effect.HandOffDeclined d) {
            handOffs.declined(node, d.range());
          }
        });
  }

  /**
   * Leases backed by the session (docs/PROTOCOL.md "Leases backed by the session"): the session
   * timeout becomes {@code L}, expired by the service's own clock (at the fast bound {@code 1+ρ});
   * a range moves only when its holder's session expires or the holder leaves the latch (no forced
   * handover, no revocation of a holder that stopped renewing); each agent feeds its core renewals
   * credited by its session ({@link SessionBackedLeases}); half of the hand-backs leave without a
   * release (LeaseLost, then the entry goes), as the node's lost-latch paths do; and the service
   * restarts at {@code restartsPerSecond}, down for {@code L/4} to {@code 2L}, restarting every
   * live session's timer when it is back, as a ZooKeeper server restored from its log does. Before
   * {@link #start}.
   */
  void backLeasesWithSessions(SessionBackedLeases.Mistake mistake, double restartsPerSecond) {
    service.backLeasesWithSessions(mistake, restartsPerSecond);
  }

  /** Credited renewals fed so far, and those that bridged a renewal gap (session-backed only). */
  long[] sessionCredits() {
    SessionBackedLeases sessions = service.sessionBacking();
    return sessions == null
        ? new long[2]
        : new long[] {sessions.creditedRenewals(), sessions.leasesKeptBeyondRenewals()};
  }

  long restarts() {
    return service.restarts();
  }

  /** Starts the agents' renewal loops and the service's session checks. */
  public void start() {
    agents.start();
    service.start();
  }

  /** Node {@code node} joined the cluster: its agent starts its renewal loop. */
  public void nodeAdded(int node) {
    if (node >= service.capacity()) {
      throw new IllegalStateException("the simulated service has room for " + service.capacity());
    }
    agents.nodeAdded(node);
  }

  /**
   * A new ring version was published: a holder that is no longer a voter of its range is revoked,
   * the range granted to a live voter (natural leader first) if there is one.
   */
  public void ringChanged() {
    service.ringChanged();
  }

  /** The holder the service records for {@code range} (what a client reads), or -1. */
  public int holder(int range) {
    return service.holder(range);
  }

  public long grants() {
    return service.grants();
  }

  /** Ranges handed over because their holder could not reach a quorum of their replicas. */
  public long stepDowns() {
    return agents.stepDowns();
  }

  /** Hand-backs whose holder's core answered the release, clean or not. */
  public long releases() {
    return agents.releases();
  }

  /** Releases the core answered clean (the agent then tried to mark them). */
  public long cleanReleases() {
    return agents.cleanReleases();
  }

  /** Grants that found the predecessor's release mark (the successor skipped its wait). */
  public long grantsAfterRelease() {
    return service.grantsAfterRelease();
  }

  /**
   * The holder of {@code range} gives it to {@code successor} on purpose, as a stand-in does when
   * the natural leader is ready again: its agent hears of it after the reply latency, releases the
   * lease through its core, marks the term released if the core says so, and leaves the latch; the
   * service then grants the range to {@code successor} (if its session is alive).
   */
  public void handBack(int range, int successor) {
    agents.handBack(range, successor);
  }

  /** Hand-offs whose holder's agent fed {@link Input.HandOff} to its core. */
  public long handOffsStarted() {
    return handOffs.handOffsStarted();
  }

  /** Hand-offs whose holder's core shipped. */
  public long handOffsShipped() {
    return handOffs.handOffsShipped();
  }

  /**
   * Hand-offs the agent gave up on (no shipment in time): released plainly; the successor scans.
   */
  public long handOffsTimedOut() {
    return handOffs.handOffsTimedOut();
  }

  /** Hand-offs the core declined: released plainly at once; the successor scans. */
  public long handOffsDeclined() {
    return handOffs.handOffsDeclined();
  }

  /**
   * The holder of {@code range} hands it to {@code successor} with a shipment: its agent (after the
   * reply latency) feeds {@link Input.HandOff} to its core and keeps renewing while the core
   * drains; on {@link Effect.HandOffShipped} it stops renewing, streams the shipment to the
   * successor ({@link Input.ImportShipment}), and once the successor acknowledged it releases
   * through its core, marks the term released if clean and leaves the latch, as {@link #handBack}
   * does. If no shipment comes within {@code drainTimeoutNanos} it hands back plainly.
   */
  public void handOff(int range, int successor, long drainTimeoutNanos) {
    handOffs.handOff(range, successor, drainTimeoutNanos);
  }

  /** Cuts node {@code node} from the service, or heals the cut. */
  public void cut(int node, boolean isCut) {
    service.cut(node, isCut);
  }

  /**
   * Hands range {@code range} to {@code successor} now, as when the natural leader reclaims it: the
   * old holder is revoked without being told and keeps its lease until it runs out.
   */
  public void forceHandover(int range, int successor) {
    service.forceHandover(range, successor);
  }

  private String sessionsToString() {
    StringBuilder b = new StringBuilder(" down=" + service.down());
    for (int n = 0; n < sim.nodeCount(); n++) {
      b.append(" node ").append(n).append(": ").append(service.describeNode(n));
      b.append(" ").append(agents.describe(n));
      b.append(" unreachable=").append(service.markers().describe(n));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return "LeaseService{"
        + service.describeRanges()
        + (service.sessionBacking() == null ? "" : sessionsToString())
        + "}";
  }
}
