package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
 */
public final class LeaseService {
  private final Simulation sim;
  private final SimRandom random;
  private final LeaseConfig config;
  private final long renewEveryNanos;
  private long sessionTimeoutNanos;
  private final int ranges;

  /** The nodes the cluster started with (natural leaders are counted over them). */
  private final int nodes;

  /** Room for nodes added by membership changes (ids are dense). */
  private static final int ADDED_NODES_MAX = 64;

  private final long[] term;

  /** Per range: the term whose holder marked it released (0: none). */
  private final long[] releasedTerm;

  private final int[] holder;
  private final int[] holderIncarnation;

  /** When the holder's check last held: a holder that stopped renewing a range loses it. */
  private final long[] lastRenewNanos;

  private final long[] lastHeardNanos;
  private final int[] sessionIncarnation;
  private final boolean[] cut;

  /** Per node: the incarnation the agent state belongs to, and the terms granted to it. */
  private final int[] agentIncarnation;

  private final long[][] agentTerms;
  private final long[] agentLastReplyNanos;
  private long grants;
  private long releases;
  private long cleanReleases;
  private long grantsAfterRelease;
  private long stepDowns;

  /** Per node and range: the agent's core reported the range's quorum unreachable. */
  private final boolean[][] agentUnreachable;

  /** Per node and range: the node's ready marker says it cannot reach the range's quorum. */
  private final boolean[][] markedUnreachable;

  /** Per node: the newest marker its agent wrote, and the newest the service applied. */
  private final long[] markerSent;

  private final long[] markerApplied;

  private final int[] markerIncarnation;

  /** Per node: the agent's connection is SUSPENDED (no renewals until an answer arrives). */
  private final boolean[] suspended;

  /** Session-backed leases ({@link #backLeasesWithSessions}); null: off. */
  private SessionBackedLeases sessions;

  /** The service is down (restarting): nobody reaches it, and it expires no session. */
  private boolean serviceDown;

  private long restarts;
  private long forcedHandoversRefused;

  public LeaseService(Simulation sim, SimRandom random) {
    this.sim = sim;
    this.random = random;
    this.config = sim.coreConfig().leases();
    this.renewEveryNanos = config.lease().toNanos() / 4;
    // Shorter than the lease on purpose: the service may move leadership while the old holder's
    // lease still runs; only the lease rules, not session timing, may keep reads safe.
    this.sessionTimeoutNanos = config.lease().toNanos() * 3 / 8;
    this.ranges = sim.coreConfig().placement().rangeCount();
    this.nodes = sim.nodeCount();
    int capacity = nodes + ADDED_NODES_MAX;
    this.term = new long[ranges];
    this.releasedTerm = new long[ranges];
    this.holder = new int[ranges];
    this.holderIncarnation = new int[ranges];
    Arrays.fill(holder, -1);
    this.lastRenewNanos = new long[ranges];
    this.lastHeardNanos = new long[capacity];
    Arrays.fill(lastHeardNanos, Long.MIN_VALUE / 2);
    this.sessionIncarnation = new int[capacity];
    this.cut = new boolean[capacity];
    this.agentIncarnation = new int[capacity];
    this.agentTerms = new long[capacity][ranges];
    this.agentLastReplyNanos = new long[capacity];
    this.agentUnreachable = new boolean[capacity][ranges];
    this.markedUnreachable = new boolean[capacity][ranges];
    this.suspended = new boolean[capacity];
    this.markerSent = new long[capacity];
    this.markerApplied = new long[capacity];
    this.markerIncarnation = new int[capacity];
    sim.setLeaseAgent(
        (node, effect) -> {
          if (effect instanceof Effect.LeaseReleased released) {
            coreReleased(node, released);
          } else if (effect instanceof Effect.QuorumReachability q) {
            quorumChanged(node, q.range(), q.reachable());
          } else if (effect instanceof Effect.HandOffShipped shipped) {
            shipped(node, shipped.shipment());
          } else if (effect instanceof Effect.HandOffDeclined d) {
            declined(node, d.range());
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
    this.sessionTimeoutNanos = config.lease().toNanos();
    this.sessions =
        new SessionBackedLeases(
            mistake,
            sessionTimeoutNanos,
            config.driftPartsPerMillion(),
            lastHeardNanos.length,
            ranges);
    if (restartsPerSecond > 0) {
      sim.schedule(random.exponentialNanos(restartsPerSecond), () -> restart(restartsPerSecond));
    }
  }

  /** Credited renewals fed so far, and those that bridged a renewal gap (session-backed only). */
  long[] sessionCredits() {
    return sessions == null
        ? new long[2]
        : new long[] {sessions.creditedRenewals(), sessions.leasesKeptBeyondRenewals()};
  }

  long restarts() {
    return restarts;
  }

  private void restart(double restartsPerSecond) {
    long lease = config.lease().toNanos();
    long down = random.between(lease / 4, 2 * lease);
    if (!serviceDown) {
      restarts++;
      serviceDown = true;
      long downAt = serviceNanos();
      sim.schedule(
          down,
          () -> {
            serviceDown = false;
            // Sessions alive when it went down get a fresh timeout: their timers restart.
            for (int n = 0; n < lastHeardNanos.length; n++) {
              if (downAt - lastHeardNanos[n] <= sessionTimeoutNanos) {
                lastHeardNanos[n] = serviceNanos();
              }
            }
          });
    }
    sim.schedule(
        down + random.exponentialNanos(restartsPerSecond), () -> restart(restartsPerSecond));
  }

  /** Node {@code node}'s session expired: every latch entry of it is gone. */
  private void expire(int node) {
    for (int r = 0; r < ranges; r++) {
      if (holder[r] == node) {
        holder[r] = -1;
      }
    }
  }

  /**
   * Node {@code node}'s agent gives {@code range} up without a release: forgets the term (no
   * renewal, real or credited, after this), LeaseLost to its core, then deletes its latch entry;
   * the service grants {@code successor} (or, -1, a candidate at its next check), who waits.
   */
  private void leaveLost(int node, int range, int successor) {
    long t = agentTerms[node][range];
    if (t == 0) {
      return;
    }
    agentTerms[node][range] = 0;
    sessions.left(node, range);
    sim.input(node, new Input.LeaseLost(range));
    deleteEntry(node, sim.incarnation(node), range, t, successor);
  }

  /**
   * The delete of node {@code node}'s latch entry of {@code range} (term {@code t}), retried while
   * the node cannot reach the service (as Curator's guaranteed delete is), unless its session
   * expires first.
   */
  private void deleteEntry(int node, int incarnation, int range, long t, int successor) {
    if (sim.incarnation(node) != incarnation) {
      return; // the process is gone: its session expires
    }
    if (unreachable(node)) {
      sim.schedule(renewEveryNanos, () -> deleteEntry(node, incarnation, range, t, successor));
      return;
    }
    sim.schedule(
        latencyNanos(),
        () -> {
          if (unreachable(node)) {
            sim.schedule(
                renewEveryNanos, () -> deleteEntry(node, incarnation, range, t, successor));
            return;
          }
          if (holder[range] != node
              || holderIncarnation[range] != incarnation
              || term[range] != t) {
            return; // gone already (its session expired, or a successor holds the range)
          }
          holder[range] = -1;
          if (successor >= 0 && sessionAlive(successor) && eligible(range, successor)) {
            grant(range, successor);
          }
        });
  }

  /** Starts the agents' renewal loops and the service's session checks. */
  public void start() {
    for (int n = 0; n < nodes; n++) {
      int node = n;
      sim.schedule(random.between(0, renewEveryNanos), () -> agentLoop(node));
    }
    sim.schedule(renewEveryNanos / 2, this::sessionCheck);
  }

  /** Node {@code node} joined the cluster: its agent starts its renewal loop. */
  public void nodeAdded(int node) {
    if (node >= lastHeardNanos.length) {
      throw new IllegalStateException(
          "the simulated service has room for " + lastHeardNanos.length);
    }
    sim.schedule(random.between(0, renewEveryNanos), () -> agentLoop(node));
  }

  /**
   * A new ring version was published: a holder that is no longer a voter of its range is revoked,
   * the range granted to a live voter (natural leader first) if there is one.
   */
  public void ringChanged() {
    for (int r = 0; r < ranges; r++) {
      if (holder[r] >= 0 && !eligible(r, holder[r])) {
        List<Integer> candidates = candidates(r);
        if (!candidates.isEmpty()) {
          grant(r, candidates.get(random.nextInt(candidates.size())));
        }
      }
    }
  }

  /** Whether {@code node} joins range {@code range}'s latch: a voter of the newest version. */
  private boolean eligible(int range, int node) {
    return sim.ring().latest().isVoter(range, node);
  }

  private List<Integer> candidates(int range) {
    List<Integer> candidates = new ArrayList<>();
    for (int n = 0; n < sim.nodeCount(); n++) {
      if (sessionAlive(n) && eligible(range, n) && !markedUnreachable[n][range]) {
        candidates.add(n);
      }
    }
    return candidates;
  }

  /** The holder the service records for {@code range} (what a client reads), or -1. */
  public int holder(int range) {
    return holder[range];
  }

  public long grants() {
    return grants;
  }

  /** Ranges handed over because their holder could not reach a quorum of their replicas. */
  public long stepDowns() {
    return stepDowns;
  }

  /** Hand-backs whose holder's core answered the release, clean or not. */
  public long releases() {
    return releases;
  }

  /** Releases the core answered clean (the agent then tried to mark them). */
  public long cleanReleases() {
    return cleanReleases;
  }

  /** Grants that found the predecessor's release mark (the successor skipped its wait). */
  public long grantsAfterRelease() {
    return grantsAfterRelease;
  }

  /**
   * The holder of {@code range} gives it to {@code successor} on purpose, as a stand-in does when
   * the natural leader is ready again: its agent hears of it after the reply latency, releases the
   * lease through its core, marks the term released if the core says so, and leaves the latch; the
   * service then grants the range to {@code successor} (if its session is alive).
   */
  public void handBack(int range, int successor) {
    int h = holder[range];
    if (h < 0 || h == successor) {
      return;
    }
    int incarnation = holderIncarnation[range];
    if (sessions != null && random.chance(0.5)) {
      // As the node leaves a latch without a release (lost latch, failed bump, a release the
      // core did not answer): LeaseLost, then the entry is deleted; the successor waits.
      reply(h, incarnation, () -> leaveLost(h, range, successor));
      return;
    }
    reply(h, incarnation, () -> release(h, range, successor));
  }

  /**
   * Node {@code node}'s agent hands {@code range} over: stop renewing, release through the core;
   * the answer ({@link #coreReleased}) marks and leaves. {@code successor} -1: the service picks
   * one.
   */
  private void release(int node, int range, int successor) {
    long t = agentTerms[node][range];
    if (t == 0) {
      return; // the agent no longer holds the range (its lease was lost meanwhile)
    }
    agentTerms[node][range] = 0; // stop renewing first: no renewal of t is sent after this
    if (sessions != null) {
      sessions.left(node, range);
    }
    pendingHandBack.put(key(node, range), successor);
    sim.input(node, new Input.ReleaseLease(range, t));
  }

  /**
   * Node {@code node}'s core reports whether it reaches a quorum of {@code range}'s replicas. Runs
   * in the node's process. Unreachable: hand the range over if held, and publish the marker.
   */
  private void quorumChanged(int node, int range, boolean reachable) {
    agentUnreachable[node][range] = !reachable;
    if (!reachable && agentTerms[node][range] > 0) {
      stepDowns++;
      release(node, range, -1);
    }
    publishMarker(node);
  }

  /**
   * Writes node {@code node}'s ready marker (its unreachable ranges) to the service, retried while
   * the node is cut off (as Curator retries, and the node writes its marker again on reconnecting);
   * a session's writes apply in order, so an older marker never replaces a newer one.
   */
  private void publishMarker(int node) {
    int incarnation = sim.incarnation(node);
    long seq = ++markerSent[node];
    boolean[] marker = agentUnreachable[node].clone();
    writeMarker(node, incarnation, seq, marker);
  }

  private void writeMarker(int node, int incarnation, long seq, boolean[] marker) {
    if (sim.incarnation(node) != incarnation || seq < markerSent[node]) {
      return; // a newer marker is on its way, or the process is gone
    }
    if (unreachable(node)) {
      sim.schedule(renewEveryNanos, () -> writeMarker(node, incarnation, seq, marker));
      return;
    }
    sim.schedule(
        latencyNanos(),
        () -> {
          if (unreachable(node)) {
            sim.schedule(renewEveryNanos, () -> writeMarker(node, incarnation, seq, marker));
          } else if (incarnation > markerIncarnation[node]
              || (incarnation == markerIncarnation[node] && seq > markerApplied[node])) {
            markerIncarnation[node] = incarnation;
            markerApplied[node] = seq;
            markedUnreachable[node] = marker;
          }
        });
  }

  private final java.util.Map<Long, Integer> pendingHandBack = new java.util.HashMap<>();

  // ---- Hand-off instead of a scan (docs/PROTOCOL.md) -------------------------------------------

  /** Per node and range: the successor of a hand-off whose drain the agent started. */
  private final java.util.Map<Long, Integer> pendingHandOff = new java.util.HashMap<>();

  private long handOffsStarted;
  private long handOffsShipped;
  private long handOffsTimedOut;
  private long handOffsDeclined;

  /** Hand-offs whose holder's agent fed {@link Input.HandOff} to its core. */
  public long handOffsStarted() {
    return handOffsStarted;
  }

  /** Hand-offs whose holder's core shipped. */
  public long handOffsShipped() {
    return handOffsShipped;
  }

  /**
   * Hand-offs the agent gave up on (no shipment in time): released plainly; the successor scans.
   */
  public long handOffsTimedOut() {
    return handOffsTimedOut;
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
    int h = holder[range];
    if (h < 0 || h == successor) {
      return;
    }
    int incarnation = holderIncarnation[range];
    reply(h, incarnation, () -> startHandOff(h, incarnation, range, successor, drainTimeoutNanos));
  }

  private void startHandOff(
      int node, int incarnation, int range, int successor, long drainTimeoutNanos) {
    long t = agentTerms[node][range];
    long k = key(node, range);
    if (t == 0 || pendingHandOff.containsKey(k) || pendingHandBack.containsKey(k)) {
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
              && agentTerms[node][range] == t) {
            pendingHandOff.remove(k);
            handOffsTimedOut++;
            sim.onNode(node, () -> release(node, range, successor));
          }
        });
  }

  /**
   * The core declined (too many keys written): release plainly, in the node's next step (not inside
   * the step that declined).
   */
  private void declined(int node, int range) {
    Integer successor = pendingHandOff.remove(key(node, range));
    if (successor != null) {
      handOffsDeclined++;
      int incarnation = sim.incarnation(node);
      sim.schedule(
          0,
          () -> {
            if (sim.isUp(node) && sim.incarnation(node) == incarnation) {
              sim.onNode(node, () -> release(node, range, successor));
            }
          });
    }
  }

  /** Hand-offs the core declined: released plainly at once; the successor scans. */
  public long handOffsDeclined() {
    return handOffsDeclined;
  }

  /** The core shipped: stream it, and release once the successor has it. Runs in the node. */
  private void shipped(int node, io.frsm.consensus.core.HandOffShipment s) {
    Integer successor = pendingHandOff.remove(key(node, s.range()));
    if (successor == null) {
      return; // the agent gave the hand-off up already
    }
    handOffsShipped++;
    agentTerms[node][s.range()] = 0; // the core ended the term: no renewal of it any more
    if (sessions != null) {
      sessions.left(node, s.range());
    }
    int incarnation = sim.incarnation(node);
    long streaming = latencyNanos() + 1000L * random.between(0, 3_000); // tables take a while
    sim.schedule(
        streaming,
        () -> {
          if (sim.isUp(successor)) {
            sim.input(successor, new Input.ImportShipment(s));
          }
          // The successor's acknowledgement, then the release (lost with a crashed holder: its
          // session expires and the service grants the range anew).
          sim.schedule(
              latencyNanos(),
              () -> {
                if (sim.isUp(node) && sim.incarnation(node) == incarnation) {
                  sim.onNode(
                      node,
                      () -> {
                        pendingHandBack.put(key(node, s.range()), successor);
                        sim.input(node, new Input.ReleaseLease(s.range(), s.term()));
                      });
                }
              });
        });
  }

  private static long key(int node, int range) {
    return ((long) node << 32) | range;
  }

  /** The core answered a release: mark it (if clean) and leave the latch, in one request. */
  private void coreReleased(int node, Effect.LeaseReleased released) {
    Integer successor = pendingHandBack.remove(key(node, released.range()));
    if (successor == null) {
      return;
    }
    releases++;
    if (released.clean()) {
      cleanReleases++;
    }
    boolean mark = released.clean();
    int incarnation = sim.incarnation(node);
    if (unreachable(node)) {
      if (sessions != null) {
        // The mark fails; the entry's delete is retried (the session may outlive the cut).
        deleteEntry(node, incarnation, released.range(), released.term(), successor);
      }
      return; // the request never reaches the service; the session will expire instead
    }
    sim.schedule(
        latencyNanos(),
        () -> {
          int range = released.range();
          if (sessions != null && unreachable(node)) {
            deleteEntry(node, incarnation, range, released.term(), successor);
            return;
          }
          boolean stillHolder =
              !unreachable(node)
                  && holder[range] == node
                  && holderIncarnation[range] == incarnation
                  && term[range] == released.term();
          if (!stillHolder) {
            return; // the conditional write fails: a successor bumped meanwhile
          }
          if (mark) {
            releasedTerm[range] = released.term();
          }
          if (sessions != null) {
            holder[range] = -1; // the latch entry is deleted after the mark
          }
          if (successor >= 0) {
            if (sessionAlive(successor) && eligible(range, successor)) {
              grant(range, successor);
            }
            return;
          }
          List<Integer> candidates = candidates(range);
          candidates.remove(Integer.valueOf(node)); // it left the latch
          if (!candidates.isEmpty()) {
            grant(range, pickNaturalFirst(range, candidates));
          }
        });
  }

  /** Cuts node {@code node} from the service, or heals the cut. */
  public void cut(int node, boolean isCut) {
    cut[node] = isCut;
  }

  /** Whether node {@code node} and the service cannot talk: cut, or the service is down. */
  private boolean unreachable(int node) {
    return cut[node] || serviceDown;
  }

  /**
   * Hands range {@code range} to {@code successor} now, as when the natural leader reclaims it: the
   * old holder is revoked without being told and keeps its lease until it runs out.
   */
  public void forceHandover(int range, int successor) {
    if (sessions != null) {
      forcedHandoversRefused++; // a latch moves only when its holder's entry goes
      return;
    }
    if (sessionAlive(successor) && holder[range] != successor && eligible(range, successor)) {
      grant(range, successor);
    }
  }

  private long latencyNanos() {
    return 1000 * random.between(100, 1_500);
  }

  private boolean sessionAlive(int node) {
    return sim.isUp(node)
        && sessionIncarnation[node] == sim.incarnation(node)
        && serviceNanos() - lastHeardNanos[node] <= sessionTimeoutNanos;
  }

  /** The service's clock: real time, or its own clock with session-backed leases. */
  private long serviceNanos() {
    return sessions == null ? sim.nowNanos() : sessions.serviceNanos(sim.nowNanos());
  }

  // ---- The service -----------------------------------------------------------------------------

  private void sessionCheck() {
    if (serviceDown) {
      sim.schedule(renewEveryNanos / 2, this::sessionCheck);
      return; // a service that is down expires nothing
    }
    for (int r = 0; r < ranges; r++) {
      int h = holder[r];
      boolean alive =
          h >= 0
              && eligible(r, h)
              && holderIncarnation[r] == sessionIncarnation[h]
              && sessionAlive(h)
              // With a latch, a holder that stopped renewing keeps the range while its session
              // lives; it leaves on its own (leaveLost).
              && (sessions != null || sim.nowNanos() - lastRenewNanos[r] <= sessionTimeoutNanos);
      if (!alive && sessions != null && h >= 0) {
        holder[r] = -1; // the expired session's latch entry is gone
      }
      if (!alive) {
        List<Integer> candidates = candidates(r);
        if (!candidates.isEmpty()) {
          grant(r, pickNaturalFirst(r, candidates));
        }
      }
    }
    sim.schedule(renewEveryNanos / 2, this::sessionCheck);
  }

  /** The natural leader first (paper §5), else any of {@code candidates}. */
  private int pickNaturalFirst(int range, List<Integer> candidates) {
    int natural = Math.floorMod(range, nodes);
    return candidates.contains(natural)
        ? natural
        : candidates.get(random.nextInt(candidates.size()));
  }

  /** The latch winner's conditional write: term + 1 and the predecessor's generation revoked. */
  private void grant(int range, int successor) {
    grants++;
    boolean afterRelease = term[range] > 0 && releasedTerm[range] == term[range];
    if (afterRelease) {
      grantsAfterRelease++;
    }
    boolean noEarlierLease = afterRelease || term[range] == 0;
    term[range]++;
    holder[range] = successor;
    holderIncarnation[range] = sessionIncarnation[successor];
    lastRenewNanos[range] = sim.nowNanos();
    long granted = term[range];
    int incarnation = holderIncarnation[range];
    reply(
        successor,
        incarnation,
        () -> {
          agentTerms[successor][range] = Math.max(agentTerms[successor][range], granted);
          sim.input(successor, new Input.TermGranted(range, granted, noEarlierLease));
          if (agentUnreachable[successor][range]) {
            // Granted while its marker was on its way: it steps down at once, as the node's
            // leadership leaves a latch it no longer competes in.
            stepDowns++;
            release(successor, range, -1);
          }
          sendRequest(successor); // a new holder starts renewing at once
        },
        () -> {
          if (sessions != null) {
            // The winner never heard its bump answered: it leaves the latch (the node's "term
            // bump failed") and competes again.
            deleteEntry(successor, incarnation, range, granted, -1);
          }
        });
  }

  /** A request from node {@code node}'s agent reached the service. */
  private void onRequest(int node, int incarnation, long[] renewTerms, long sentMonoNanos) {
    if (incarnation < sessionIncarnation[node]) {
      return; // a request of a dead incarnation
    }
    if (incarnation > sessionIncarnation[node]) {
      if (markerIncarnation[node] < incarnation) {
        markedUnreachable[node] = new boolean[ranges]; // a new process registers a fresh marker
      }
    }
    if (sessions != null && serviceNanos() - lastHeardNanos[node] > sessionTimeoutNanos) {
      expire(node); // the session expired before this request: its entries went with it
    }
    sessionIncarnation[node] = incarnation;
    lastHeardNanos[node] = serviceNanos();
    for (int r = 0; r < ranges; r++) {
      if (renewTerms[r] == 0) {
        continue;
      }
      int range = r;
      long t = renewTerms[r];
      boolean checkHolds = holder[r] == node && holderIncarnation[r] == incarnation && term[r] == t;
      if (checkHolds) {
        lastRenewNanos[r] = sim.nowNanos();
      }
      Input answer =
          checkHolds ? new Input.LeaseRenewed(range, t, sentMonoNanos) : new Input.LeaseLost(range);
      reply(
          node,
          incarnation,
          () -> {
            if (sessions != null && agentTerms[node][range] == t) {
              if (checkHolds) {
                sessions.renewed(node, range, t, sentMonoNanos);
              } else {
                sessions.left(node, range); // a successor holds the range: stop crediting
              }
            }
            sim.input(node, answer);
          });
    }
    reply(node, incarnation, () -> {});
  }

  /** Sends an answer to node {@code node}'s agent; it runs in the node's process on arrival. */
  private void reply(int node, int incarnation, Runnable onArrival) {
    reply(node, incarnation, onArrival, () -> {});
  }

  /** As {@link #reply(int, int, Runnable)}; {@code onCut} runs if a cut loses the answer. */
  private void reply(int node, int incarnation, Runnable onArrival, Runnable onCut) {
    if (unreachable(node)) {
      onCut.run();
      return;
    }
    sim.schedule(
        latencyNanos(),
        () -> {
          if (unreachable(node)) {
            onCut.run();
          } else if (sim.isUp(node) && sim.incarnation(node) == incarnation) {
            sim.onNode(
                node,
                () -> {
                  agentLastReplyNanos[node] = sim.nowNanos();
                  onArrival.run();
                  if (suspended[node]) {
                    suspended[node] = false; // RECONNECTED: renew at once, with a fresh send time
                    sendRequest(node);
                  }
                });
          }
        });
  }

  // ---- The agents ------------------------------------------------------------------------------

  private void agentLoop(int node) {
    sim.schedule(renewEveryNanos, () -> agentLoop(node));
    if (!sim.isUp(node) || sim.isPaused(node)) {
      return; // a paused process sends nothing
    }
    int incarnation = sim.incarnation(node);
    if (agentIncarnation[node] != incarnation) {
      agentIncarnation[node] = incarnation; // a new process: a new session, no terms
      Arrays.fill(agentTerms[node], 0);
      Arrays.fill(agentUnreachable[node], false); // a new core counts every quorum reachable
      markerSent[node] = 0;
      agentLastReplyNanos[node] = sim.nowNanos();
      suspended[node] = false;
      if (sessions != null) {
        sessions.forget(node);
      }
    }
    long silent = sim.nowNanos() - agentLastReplyNanos[node];
    long suspendAfter = sessionTimeoutNanos * 2 / 3;
    // With session-backed leases the agent hears LOST late (2L later): their safety must rest on
    // the credit's bound, never on noticing the session's end.
    long lostAfter =
        suspendAfter + sessionTimeoutNanos + (sessions == null ? 0 : 2 * config.lease().toNanos());
    if (silent > lostAfter) {
      for (int r = 0; r < ranges; r++) {
        if (agentTerms[node][r] > 0) {
          if (sessions != null) {
            leaveLost(node, r, -1); // and leave the latch, as the node does after LOST
          } else {
            agentTerms[node][r] = 0;
            sim.input(node, new Input.LeaseLost(r)); // LOST: the session is taken for expired
          }
        }
      }
    } else if (silent > suspendAfter) {
      suspended[node] = true; // SUSPENDED: renewals pause, the leases run out by themselves
    }
    if (sessions != null) {
      sessions.feed(sim, node, agentTerms[node]); // the session vouches for the leases
    }
    sendRequest(node);
  }

  /** One request of the agent: a renewal per range it holds, and the session heartbeat. */
  private void sendRequest(int node) {
    int incarnation = sim.incarnation(node);
    long[] renewTerms = suspended[node] ? new long[ranges] : agentTerms[node].clone();
    long sentMono = sim.monoNanos(node);
    if (!unreachable(node)) {
      sim.schedule(
          latencyNanos(),
          () -> {
            if (!unreachable(node)) {
              onRequest(node, incarnation, renewTerms, sentMono);
            }
          });
    }
  }

  private String sessionsToString() {
    StringBuilder b = new StringBuilder(" down=" + serviceDown);
    for (int n = 0; n < sim.nodeCount(); n++) {
      b.append(" node ").append(n).append(": alive=").append(sessionAlive(n));
      b.append(" up=").append(sim.isUp(n)).append(" cut=").append(cut[n]);
      b.append(" suspended=").append(suspended[n]);
      b.append(" terms=").append(Arrays.toString(agentTerms[n]));
      b.append(" unreachable=").append(Arrays.toString(markedUnreachable[n]));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return "LeaseService{terms="
        + Arrays.toString(term)
        + " holders="
        + Arrays.toString(holder)
        + " released="
        + Arrays.toString(releasedTerm)
        + (sessions == null ? "" : sessionsToString())
        + "}";
  }
}
