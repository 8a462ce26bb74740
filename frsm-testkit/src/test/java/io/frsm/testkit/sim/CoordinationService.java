package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The coordination service's side of {@link LeaseService} (ZooKeeper with Curator as the simulator
 * plays it): per range the term, the latch holder and the release mark; the latch entries' deletes
 * and the conditional mark-and-leave; grants (natural leader first) at its session checks, on
 * hand-backs, forced handovers and ring changes; per node its cut, its session ({@link
 * ServiceSessions}) and the ready marker the service applied ({@link ReadyMarkers}). It answers the
 * agents ({@link AgentAnswers}) through {@link #reply}, after the reply latency, in the node's
 * process.
 */
final class CoordinationService {
  private final Simulation sim;
  private final SimRandom random;
  private final long renewEveryNanos;
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

  private final ServiceSessions sessions;
  private final boolean[] cut;
  private long grants;
  private long grantsAfterRelease;

  private final ReadyMarkers markers;

  private long forcedHandoversRefused;

  /** The agents it answers; set once, before {@link #start}. */
  private AgentAnswers agents;

  CoordinationService(Simulation sim, SimRandom random, int capacity) {
    this.sim = sim;
    this.random = random;
    this.renewEveryNanos = sim.coreConfig().leases().lease().toNanos() / 4;
    this.ranges = sim.coreConfig().placement().rangeCount();
    this.nodes = sim.nodeCount();
    this.term = new long[ranges];
    this.releasedTerm = new long[ranges];
    this.holder = new int[ranges];
    this.holderIncarnation = new int[ranges];
    Arrays.fill(holder, -1);
    this.lastRenewNanos = new long[ranges];
    this.sessions = new ServiceSessions(sim, random, capacity);
    this.cut = new boolean[capacity];
    this.markers = new ReadyMarkers(capacity, ranges);
  }

  void answer(AgentAnswers agents) {
    this.agents = agents;
  }

  /** See {@link LeaseService#backLeasesWithSessions}. */
  void backLeasesWithSessions(SessionBackedLeases.Mistake mistake, double restartsPerSecond) {
    sessions.backLeases(mistake, restartsPerSecond, ranges);
  }

  /** Session-backed leases, or null when off. */
  SessionBackedLeases sessionBacking() {
    return sessions.backing();
  }

  long sessionTimeoutNanos() {
    return sessions.timeoutNanos();
  }

  /** How many nodes the service has room for (ids are dense). */
  int capacity() {
    return sessions.capacity();
  }

  long restarts() {
    return sessions.restarts();
  }

  private boolean sessionBacked() {
    return sessions.backing() != null;
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
          if (successor >= 0 && sessions.alive(successor) && eligible(range, successor)) {
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
    if (sessionBacked() && unreachable(node)) {
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
    if (sessionBacked()) {
      holder[range] = -1; // the latch entry is deleted after the mark
    }
    if (successor >= 0) {
      if (sessions.alive(successor) && eligible(range, successor)) {
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
      if (sessions.alive(n) && eligible(range, n) && !markers.unreachable(n, range)) {
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
    return cut[node] || sessions.down();
  }

  /** See {@link LeaseService#forceHandover}. */
  void forceHandover(int range, int successor) {
    if (sessionBacked()) {
      forcedHandoversRefused++; // a latch moves only when its holder's entry goes
      return;
    }
    if (sessions.alive(successor) && holder[range] != successor && eligible(range, successor)) {
      grant(range, successor);
    }
  }

  /** One trip between a node and the service. */
  long latencyNanos() {
    return 1000 * random.between(100, 1_500);
  }

  private void sessionCheck() {
    if (sessions.down()) {
      sim.schedule(renewEveryNanos / 2, this::sessionCheck);
      return; // a service that is down expires nothing
    }
    for (int r = 0; r < ranges; r++) {
      int h = holder[r];
      boolean alive =
          h >= 0
              && eligible(r, h)
              && holderIncarnation[r] == sessions.incarnation(h)
              && sessions.alive(h)
              // With a latch, a holder that stopped renewing keeps the range while its session
              // lives; it leaves on its own (leaveLost).
              && (sessionBacked() || sim.nowNanos() - lastRenewNanos[r] <= sessions.timeoutNanos());
      if (!alive && sessionBacked() && h >= 0) {
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
    holderIncarnation[range] = sessions.incarnation(successor);
    lastRenewNanos[range] = sim.nowNanos();
    long granted = term[range];
    int incarnation = holderIncarnation[range];
    reply(
        successor,
        incarnation,
        () -> agents.granted(successor, range, granted, noEarlierLease),
        () -> {
          if (sessionBacked()) {
            // The winner never heard its bump answered: it leaves the latch (the node's "term
            // bump failed") and competes again.
            deleteEntry(successor, incarnation, range, granted, -1);
          }
        });
  }

  /** A request from node {@code node}'s agent reached the service. */
  void onRequest(int node, int incarnation, long[] renewTerms, long sentMonoNanos) {
    if (incarnation < sessions.incarnation(node)) {
      return; // a request of a dead incarnation
    }
    if (incarnation > sessions.incarnation(node)) {
      markers.newProcess(node, incarnation);
    }
    if (sessions.expiredBefore(node)) {
      expire(node); // the session expired before this request: its entries went with it
    }
    sessions.heard(node, incarnation);
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
    return "alive=" + sessions.alive(node) + " up=" + sim.isUp(node) + " cut=" + cut[node];
  }

  boolean down() {
    return sessions.down();
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
