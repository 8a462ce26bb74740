package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The coordination service's side of {@link LeaseService} (ZooKeeper with Curator as the simulator
 * plays it): per range the term, the latch holder and the release mark; per node the session (timed
 * out by the service's clock), its cut, and the ready marker the service applied; restarts of the
 * service with session-backed leases. It answers the agents ({@link LeaseAgents}) through {@link
 * #reply}, after the reply latency, in the node's process.
 */
final class CoordinationService {
  private final Simulation sim;
  private final SimRandom random;
  private final LeaseConfig config;
  private final long renewEveryNanos;
  private long sessionTimeoutNanos;
  private final int ranges;

  /** The nodes the cluster started with (natural leaders are counted over them). */
  private final int nodes;

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
  private long grants;
  private long grantsAfterRelease;

  private final ReadyMarkers markers;

  /** Session-backed leases ({@link #backLeasesWithSessions}); null: off. */
  private SessionBackedLeases sessions;

  /** The service is down (restarting): nobody reaches it, and it expires no session. */
  private boolean serviceDown;

  private long restarts;
  private long forcedHandoversRefused;

  /** The agents it answers; set once, before {@link #start}. */
  private LeaseAgents agents;

  CoordinationService(Simulation sim, SimRandom random, int capacity) {
    this.sim = sim;
    this.random = random;
    this.config = sim.coreConfig().leases();
    this.renewEveryNanos = config.lease().toNanos() / 4;
    // Shorter than the lease on purpose: the service may move leadership while the old holder's
    // lease still runs; only the lease rules, not session timing, may keep reads safe.
    this.sessionTimeoutNanos = config.lease().toNanos() * 3 / 8;
    this.ranges = sim.coreConfig().placement().rangeCount();
    this.nodes = sim.nodeCount();
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
    this.markers = new ReadyMarkers(capacity, ranges);
  }

  void answer(LeaseAgents agents) {
    this.agents = agents;
  }

  /** See {@link LeaseService#backLeasesWithSessions}. */
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

  /** Session-backed leases, or null when off. */
  SessionBackedLeases sessions() {
    return sessions;
  }

  long sessionTimeoutNanos() {
    return sessionTimeoutNanos;
  }

  /** How many nodes the service has room for (ids are dense). */
  int capacity() {
    return lastHeardNanos.length;
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
   * The delete of node {@code node}'s latch entry of {@code range} (term {@code t}), retried while
   * the node cannot reach the service (as Curator's guaranteed delete is), unless its session
   * expires first.
   */
  void deleteEntry(int node, int incarnation, int range, long t, int successor) {
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

  /**
   * The agent's request after its core answered a release reached the service: mark the term
   * released (if {@code mark}) and leave the latch, conditional on node {@code node} still holding
   * the term; then grant {@code successor}, or (-1) a candidate the service picks.
   */
  void markAndLeave(
      int node, int incarnation, Effect.LeaseReleased released, boolean mark, int successor) {
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
  }

  /** Starts the service's session checks. */
  void start() {
    sim.schedule(renewEveryNanos / 2, this::sessionCheck);
  }

  /** See {@link LeaseService#ringChanged}. */
  void ringChanged() {
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
      if (sessionAlive(n) && eligible(range, n) && !markers.unreachable(n, range)) {
        candidates.add(n);
      }
    }
    return candidates;
  }

  /** The holder the service records for {@code range} (what a client reads), or -1. */
  int holder(int range) {
    return holder[range];
  }

  /** The incarnation of the process whose session holds {@code range}. */
  int holderIncarnation(int range) {
    return holderIncarnation[range];
  }

  long grants() {
    return grants;
  }

  long grantsAfterRelease() {
    return grantsAfterRelease;
  }

  void cut(int node, boolean isCut) {
    cut[node] = isCut;
  }

  /** Whether node {@code node} and the service cannot talk: cut, or the service is down. */
  boolean unreachable(int node) {
    return cut[node] || serviceDown;
  }

  /** See {@link LeaseService#forceHandover}. */
  void forceHandover(int range, int successor) {
    if (sessions != null) {
      forcedHandoversRefused++; // a latch moves only when its holder's entry goes
      return;
    }
    if (sessionAlive(successor) && holder[range] != successor && eligible(range, successor)) {
      grant(range, successor);
    }
  }

  /** One trip between a node and the service. */
  long latencyNanos() {
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
        () -> agents.granted(successor, range, granted, noEarlierLease),
        () -> {
          if (sessions != null) {
            // The winner never heard its bump answered: it leaves the latch (the node's "term
            // bump failed") and competes again.
            deleteEntry(successor, incarnation, range, granted, -1);
          }
        });
  }

  /** A request from node {@code node}'s agent reached the service. */
  void onRequest(int node, int incarnation, long[] renewTerms, long sentMonoNanos) {
    if (incarnation < sessionIncarnation[node]) {
      return; // a request of a dead incarnation
    }
    if (incarnation > sessionIncarnation[node]) {
      markers.newProcess(node, incarnation);
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
          () -> agents.renewalAnswered(node, range, t, checkHolds, sentMonoNanos, answer));
    }
    reply(node, incarnation, () -> {});
  }

  /** Node {@code node}'s ready markers as the service applied them. */
  ReadyMarkers markers() {
    return markers;
  }

  /** Sends an answer to node {@code node}'s agent; it runs in the node's process on arrival. */
  void reply(int node, int incarnation, Runnable onArrival) {
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
            sim.onNode(node, () -> agents.heard(node, onArrival));
          }
        });
  }

  /** The service's view of node {@code node}, for failure messages. */
  String describeNode(int node) {
    return "alive=" + sessionAlive(node) + " up=" + sim.isUp(node) + " cut=" + cut[node];
  }

  boolean down() {
    return serviceDown;
  }

  String describeRanges() {
    return "terms="
        + Arrays.toString(term)
        + " holders="
        + Arrays.toString(holder)
        + " released="
        + Arrays.toString(releasedTerm);
  }
}
