package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Each node's lease agent of {@link LeaseService}: the driver thread inside the node's process that
 * talks to the {@link CoordinationService}. Its renewal loop (every {@code L/4}: a renewal per
 * range granted to it, and a session heartbeat), its connection states (SUSPENDED, RECONNECTED,
 * LOST, as the node's LeaseKeeper reacts to Curator's), step-down on {@link
 * Effect.QuorumReachability} with the ready marker it publishes, and hand-backs (release through
 * the core, then mark and leave). It runs in the node's process: while the node pauses it sends
 * nothing.
 */
final class LeaseAgents implements AgentAnswers {
  private final Simulation sim;
  private final SimRandom random;
  private final LeaseConfig config;
  private final CoordinationService service;
  private final long renewEveryNanos;
  private final int ranges;

  /** The nodes the cluster started with. */
  private final int nodes;

  /** Per node: the incarnation the agent state belongs to, and the terms granted to it. */
  private final int[] agentIncarnation;

  private final long[][] agentTerms;
  private final long[] agentLastReplyNanos;
  private long releases;
  private long cleanReleases;
  private long stepDowns;

  /** Per node and range: the agent's core reported the range's quorum unreachable. */
  private final boolean[][] agentUnreachable;

  /** Per node: the newest marker its agent wrote. */
  private final long[] markerSent;

  /** Per node: the agent's connection is SUSPENDED (no renewals until an answer arrives). */
  private final boolean[] suspended;

  /** Per node and range ({@link #key}): the successor of a release the agent fed its core. */
  private final Map<Long, Integer> pendingHandBack = new HashMap<>();

  LeaseAgents(Simulation sim, SimRandom random, CoordinationService service) {
    this.sim = sim;
    this.random = random;
    this.config = sim.coreConfig().leases();
    this.service = service;
    this.renewEveryNanos = config.lease().toNanos() / 4;
    this.ranges = sim.coreConfig().placement().rangeCount();
    this.nodes = sim.nodeCount();
    int capacity = service.capacity();
    this.agentIncarnation = new int[capacity];
    this.agentTerms = new long[capacity][ranges];
    this.agentLastReplyNanos = new long[capacity];
    this.agentUnreachable = new boolean[capacity][ranges];
    this.suspended = new boolean[capacity];
    this.markerSent = new long[capacity];
  }

  /** Starts the renewal loops of the nodes the cluster started with. */
  void start() {
    for (int n = 0; n < nodes; n++) {
      int node = n;
      sim.schedule(random.between(0, renewEveryNanos), () -> agentLoop(node));
    }
  }

  /** Node {@code node} joined the cluster: its agent starts its renewal loop. */
  void nodeAdded(int node) {
    sim.schedule(random.between(0, renewEveryNanos), () -> agentLoop(node));
  }

  long stepDowns() {
    return stepDowns;
  }

  long releases() {
    return releases;
  }

  long cleanReleases() {
    return cleanReleases;
  }

  /** The term of {@code range} node {@code node}'s agent renews (0: none). */
  long term(int node, int range) {
    return agentTerms[node][range];
  }

  /**
   * The core ended node {@code node}'s term of {@code range} (it shipped): no renewal of it any
   * more.
   */
  void termEnded(int node, int range) {
    agentTerms[node][range] = 0;
    if (service.sessionBacking() != null) {
      service.sessionBacking().left(node, range);
    }
  }

  /**
   * Whether node {@code node}'s agent waits for its core's answer to a release of {@code range}.
   */
  boolean releasing(int node, int range) {
    return pendingHandBack.containsKey(key(node, range));
  }

  /**
   * Feeds {@link Input.ReleaseLease} of term {@code t} to node {@code node}'s core; the answer
   * ({@link #coreReleased}) marks and leaves for {@code successor}. Runs in the node.
   */
  void releaseTerm(int node, int range, long t, int successor) {
    pendingHandBack.put(key(node, range), successor);
    sim.input(node, new Input.ReleaseLease(range, t));
  }

  static long key(int node, int range) {
    return ((long) node << 32) | range;
  }

  /** See {@link LeaseService#handBack}. */
  void handBack(int range, int successor) {
    int h = service.holder(range);
    if (h < 0 || h == successor) {
      return;
    }
    int incarnation = service.holderIncarnation(range);
    if (service.sessionBacking() != null && random.chance(0.5)) {
      // As the node leaves a latch without a release (lost latch, failed bump, a release the
      // core did not answer): LeaseLost, then the entry is deleted; the successor waits.
      service.reply(h, incarnation, () -> leaveLost(h, range, successor));
      return;
    }
    service.reply(h, incarnation, () -> release(h, range, successor));
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
    service.sessionBacking().left(node, range);
    sim.input(node, new Input.LeaseLost(range));
    service.deleteEntry(node, sim.incarnation(node), range, t, successor);
  }

  /**
   * Node {@code node}'s agent hands {@code range} over: stop renewing, release through the core;
   * the answer ({@link #coreReleased}) marks and leaves. {@code successor} -1: the service picks
   * one.
   */
  void release(int node, int range, int successor) {
    long t = agentTerms[node][range];
    if (t == 0) {
      return; // the agent no longer holds the range (its lease was lost meanwhile)
    }
    agentTerms[node][range] = 0; // stop renewing first: no renewal of t is sent after this
    if (service.sessionBacking() != null) {
      service.sessionBacking().left(node, range);
    }
    releaseTerm(node, range, t, successor);
  }

  /**
   * Node {@code node}'s core reports whether it reaches a quorum of {@code range}'s replicas. Runs
   * in the node's process. Unreachable: hand the range over if held, and publish the marker.
   */
  void quorumChanged(int node, int range, boolean reachable) {
    agentUnreachable[node][range] = !reachable;
    if (!reachable && agentTerms[node][range] > 0) {
      stepDowns++;
      release(node, range, -1);
    }
    publishMarker(node);
  }

  /**
   * Writes node {@code node}'s ready marker (its unreachable ranges) to the service, retried while
   * the node is cut off (as Curator retries, and the node writes its marker again on reconnecting).
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
    if (service.unreachable(node)) {
      sim.schedule(renewEveryNanos, () -> writeMarker(node, incarnation, seq, marker));
      return;
    }
    sim.schedule(
        service.latencyNanos(),
        () -> {
          if (service.unreachable(node)) {
            sim.schedule(renewEveryNanos, () -> writeMarker(node, incarnation, seq, marker));
          } else {
            service.markers().apply(node, incarnation, seq, marker);
          }
        });
  }

  /** The core answered a release: mark it (if clean) and leave the latch, in one request. */
  void coreReleased(int node, Effect.LeaseReleased released) {
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
    if (service.unreachable(node)) {
      if (service.sessionBacking() != null) {
        // The mark fails; the entry's delete is retried (the session may outlive the cut).
        service.deleteEntry(node, incarnation, released.range(), released.term(), successor);
      }
      return; // the request never reaches the service; the session will expire instead
    }
    sim.schedule(
        service.latencyNanos(),
        () -> service.markAndLeave(node, incarnation, released, mark, successor));
  }

  @Override
  public void granted(int node, int range, long granted, boolean noEarlierLease) {
    agentTerms[node][range] = Math.max(agentTerms[node][range], granted);
    sim.input(node, new Input.TermGranted(range, granted, noEarlierLease));
    if (agentUnreachable[node][range]) {
      // Granted while its marker was on its way: it steps down at once, as the node's
      // leadership leaves a latch it no longer competes in.
      stepDowns++;
      release(node, range, -1);
    }
    sendRequest(node); // a new holder starts renewing at once
  }

  @Override
  public void renewalAnswered(
      int node, int range, long t, boolean checkHolds, long sentMonoNanos, Input answer) {
    SessionBackedLeases sessions = service.sessionBacking();
    if (sessions != null && agentTerms[node][range] == t) {
      if (checkHolds) {
        sessions.renewed(node, range, t, sentMonoNanos);
      } else {
        sessions.left(node, range); // a successor holds the range: stop crediting
      }
    }
    sim.input(node, answer);
  }

  @Override
  public void heard(int node, Runnable onArrival) {
    agentLastReplyNanos[node] = sim.nowNanos();
    onArrival.run();
    if (suspended[node]) {
      suspended[node] = false; // RECONNECTED: renew at once, with a fresh send time
      sendRequest(node);
    }
  }

  private void agentLoop(int node) {
    sim.schedule(renewEveryNanos, () -> agentLoop(node));
    if (!sim.isUp(node) || sim.isPaused(node)) {
      return; // a paused process sends nothing
    }
    SessionBackedLeases sessions = service.sessionBacking();
    long sessionTimeoutNanos = service.sessionTimeoutNanos();
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
    if (!service.unreachable(node)) {
      sim.schedule(
          service.latencyNanos(),
          () -> {
            if (!service.unreachable(node)) {
              service.onRequest(node, incarnation, renewTerms, sentMono);
            }
          });
    }
  }

  /** The agent's view of node {@code node}, for failure messages. */
  String describe(int node) {
    return "suspended=" + suspended[node] + " terms=" + Arrays.toString(agentTerms[node]);
  }
}
