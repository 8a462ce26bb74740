package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RingTransition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The publisher of ring versions, as the server will run it over ZooKeeper (docs/PROTOCOL.md
 * "Membership changes"), modelled deterministically inside the simulation. It owns the durable ring
 * history ({@link Simulation#publishPlacement}: nodes restarted later are built with the newest
 * version) and performs one step at a time:
 *
 * <ol>
 *   <li>{@link RingTransition#check} against the newest version and the retired ids, then publish;
 *   <li>deliver {@link Input.PlacementChanged} to every node that is not stopped, each after its
 *       own delay, some notices lost (re-sent while a node is behind, and at once to a node that
 *       reports {@link Effect.RingBehind}), so nodes run different versions at once;
 *   <li>wait until a quorum of the new voters of every range whose members changed reported the
 *       version installed ({@link Effect.RingInstalled}, or a restart at that version) — rule 4a;
 *   <li>then ask {@link Input.SettleRange} of every range whose voters changed: of the range's
 *       lease holder when leases are on (only it can prepare), else of a voter that installed the
 *       version; asked again after {@code settled == false} or a timeout — rule 4b;
 *   <li>{@link RingTransition#mayFollow} must hold before the step's continuation runs.
 * </ol>
 *
 * Besides lost notices, a node's watch may be cut for a while ({@link #cutWatch}: its session to
 * the coordination service is down while it still talks to its peers): it hears of no version,
 * asked or not, until the cut heals, and may fall several versions behind.
 *
 * <p>A {@link MembershipMutation} breaks one of these on purpose.
 */
final class MembershipOrchestrator implements Simulation.MembershipAgent {
  /** Notices of a new version reach a node within this (ZooKeeper watch plus the node's read). */
  private static final long NOTICE_DELAY_MAX_MICROS = 8_000;

  private static final double NOTICE_LOSS = 0.2;
  private static final long RESYNC_EVERY_NANOS = 15_000_000L;
  private static final long SETTLE_TIMEOUT_NANOS = 150_000_000L;
  private static final long SETTLE_RETRY_NANOS = 4_000_000L;

  private final Simulation sim;
  private final SimRandom random;
  private final LeaseService leases;
  private final Set<MembershipMutation> mutations;

  /** Per node: until when its watch is cut (virtual nanos). */
  private final Map<Integer, Long> watchCutUntil = new HashMap<>();

  /** The highest ring version each node reported installed, or started with. */
  private final Map<Integer, Long> installed = new HashMap<>();

  private Step step;
  private boolean advanceScheduled;
  private boolean resyncScheduled;
  private long versionsPublished;
  private long settlesAsked;
  private long settlesRefused;
  private long noticesSent;

  /** Steps followed before a quorum of their voters installed them (only when mutated). */
  private long learnerStepsFollowedEarly;

  private long voterStepsFollowedEarly;
  private long sparedStepsFollowedEarly;

  /** The step in progress: one version published and not yet followed. */
  private final class Step {
    final RingTransition transition;
    final Runnable then;
    final Set<Integer> settled = new TreeSet<>();

    /** Per range being settled: a counter that makes a timeout of an earlier ask harmless. */
    final Map<Integer, Integer> asks = new HashMap<>();

    boolean settlesStarted;

    Step(RingTransition transition, Runnable then) {
      this.transition = transition;
      this.then = then;
    }

    long version() {
      return transition.to().ringVersion();
    }
  }

  MembershipOrchestrator(
      Simulation sim, SimRandom random, LeaseService leases, Set<MembershipMutation> mutations) {
    this.sim = sim;
    this.random = random;
    this.leases = leases;
    this.mutations = Set.copyOf(mutations);
    long version = sim.ring().latest().ringVersion();
    for (int node = 0; node < sim.nodeCount(); node++) {
      installed.put(node, version); // built with it
    }
    sim.setMembershipAgent(this);
  }

  boolean busy() {
    return step != null;
  }

  long versionsPublished() {
    return versionsPublished;
  }

  long settlesAsked() {
    return settlesAsked;
  }

  long settlesRefused() {
    return settlesRefused;
  }

  long noticesSent() {
    return noticesSent;
  }

  /**
   * Steps that changed only learners and were followed before a quorum of the new voters installed
   * them ({@link MembershipMutation#SKIP_INSTALL_WAIT} only).
   */
  long learnerStepsFollowedEarly() {
    return learnerStepsFollowedEarly;
  }

  /**
   * Steps that changed voters with no settle to run (every such range lost one voter of an
   * even-sized set: {@code RingTransition.votersToSettle} empty) and were followed before a quorum
   * of the new voters installed them ({@link MembershipMutation#SKIP_INSTALL_WAIT} only): no
   * settle's listing implies rule (a) there, only the wait does.
   */
  long sparedStepsFollowedEarly() {
    return sparedStepsFollowedEarly;
  }

  /**
   * Steps that settled a range and were followed before a quorum of the new voters installed them:
   * never, even with {@link MembershipMutation#SKIP_INSTALL_WAIT}, as long as a settle's listing is
   * answered only by replicas that installed its version.
   */
  long voterStepsFollowedEarly() {
    return voterStepsFollowedEarly;
  }

  /**
   * Publishes {@code next} and runs {@code then} once it may be followed (rule 4).
   *
   * @throws io.frsm.consensus.core.UnsafeRingTransitionException if {@code next} may not follow the
   *     newest version (a bug of the caller, reported with the seed)
   */
  void publish(Placement next, Runnable then) {
    if (step != null) {
      throw new IllegalStateException("one membership step at a time: " + step.version());
    }
    RingTransition transition =
        RingTransition.check(sim.ring().latest(), next, sim.ring().retired());
    sim.publishPlacement(next);
    versionsPublished++;
    if (leases != null) {
      leases.ringChanged();
    }
    step = new Step(transition, then);
    for (int node = 0; node < sim.nodeCount(); node++) {
      notify(node);
    }
    resyncLater();
    advance();
  }

  /**
   * Node {@code node} hears of no ring version for {@code nanos} (its coordination session is cut,
   * its peers still reach it); when the cut heals it is sent the newest one.
   */
  void cutWatch(int node, long nanos) {
    watchCutUntil.merge(node, sim.nowNanos() + nanos, Math::max);
    sim.schedule(nanos, () -> notify(node));
  }

  /** Sends node {@code node} the newest placement, after a delay; the notice may be lost. */
  private void notify(int node) {
    if (sim.isStopped(node) || watchCutUntil.getOrDefault(node, 0L) > sim.nowNanos()) {
      return;
    }
    Placement latest = sim.ring().latest();
    noticesSent++;
    if (random.chance(NOTICE_LOSS)) {
      return;
    }
    sim.schedule(
        1000 * random.between(100, NOTICE_DELAY_MAX_MICROS),
        () -> sim.input(node, new Input.PlacementChanged(latest)));
  }

  /** While some running node is behind, re-sends it the newest placement now and then. */
  private void resyncLater() {
    if (resyncScheduled) {
      return;
    }
    resyncScheduled = true;
    sim.schedule(
        RESYNC_EVERY_NANOS,
        () -> {
          resyncScheduled = false;
          long latest = sim.ring().latest().ringVersion();
          boolean behind = false;
          for (int node = 0; node < sim.nodeCount(); node++) {
            if (!sim.isStopped(node) && installed.getOrDefault(node, -1L) < latest) {
              behind = true;
              notify(node);
            }
          }
          if (behind) {
            resyncLater();
          }
        });
  }

  @Override
  public void emitted(int node, Effect effect) {
    if (effect instanceof Effect.RingInstalled ring) {
      installed.merge(node, ring.ringVersion(), Math::max);
    } else if (effect instanceof Effect.RingBehind) {
      notify(node); // the driver fetches the ring
    } else if (effect instanceof Effect.RangeSettled settled) {
      onSettled(settled);
    }
    advanceSoon();
  }

  @Override
  public void started(int node, long ringVersion) {
    installed.merge(node, ringVersion, Math::max);
    advanceSoon();
  }

  /** Effects arrive inside a node's step: the orchestrator reacts in an event of its own. */
  private void advanceSoon() {
    if (step != null && !advanceScheduled) {
      advanceScheduled = true;
      sim.schedule(
          0,
          () -> {
            advanceScheduled = false;
            advance();
          });
    }
  }

  private Set<Integer> installedBy(long version) {
    Set<Integer> nodes = new TreeSet<>();
    installed.forEach(
        (node, v) -> {
          if (v >= version) {
            nodes.add(node);
          }
        });
    return nodes;
  }

  private void advance() {
    Step s = step;
    if (s == null) {
      return;
    }
    Set<Integer> installedBy = installedBy(s.version());
    if (!s.settlesStarted) {
      if (!mutations.contains(MembershipMutation.SKIP_INSTALL_WAIT)) {
        for (int range : s.transition.membersChanged()) {
          if (!s.transition.installedByQuorum(range, installedBy)) {
            return; // rule 4a: settles are asked only after the installation quorum
          }
        }
      }
      s.settlesStarted = true;
      for (int range : s.transition.votersToSettle()) {
        if (mutations.contains(MembershipMutation.SKIP_SETTLE)) {
          s.settled.add(range);
        } else {
          askSettle(s, range);
        }
      }
    }
    boolean mayFollow =
        mutations.contains(MembershipMutation.SKIP_INSTALL_WAIT)
            ? s.settled.containsAll(s.transition.votersToSettle())
            : s.transition.mayFollow(installedBy, s.settled);
    if (mayFollow) {
      boolean quorumInstalled = true;
      for (int range : s.transition.membersChanged()) {
        quorumInstalled &= s.transition.installedByQuorum(range, installedBy);
      }
      if (!quorumInstalled) {
        if (s.transition.votersChanged().isEmpty()) {
          learnerStepsFollowedEarly++;
        } else if (s.transition.votersToSettle().isEmpty()) {
          sparedStepsFollowedEarly++;
        } else {
          voterStepsFollowedEarly++;
        }
      }
      step = null;
      s.then.run();
    }
  }

  /**
   * Asks a node to settle {@code range} at the step's version: the lease holder with leases on,
   * else a running voter that installed the version (any running voter if none did yet). Asks again
   * if no answer comes within the timeout.
   */
  private void askSettle(Step s, int range) {
    if (step != s || s.settled.contains(range)) {
      return;
    }
    int ask = s.asks.merge(range, 1, Integer::sum);
    int target = settleTarget(s, range);
    if (target >= 0) {
      settlesAsked++;
      sim.input(target, new Input.SettleRange(range, s.version()));
    }
    sim.schedule(
        target >= 0 ? SETTLE_TIMEOUT_NANOS : SETTLE_RETRY_NANOS,
        () -> {
          if (s.asks.get(range) == ask) {
            askSettle(s, range);
          }
        });
  }

  private int settleTarget(Step s, int range) {
    List<Integer> voters = s.transition.to().replicas(range);
    if (leases != null) {
      int holder = leases.holder(range);
      return holder >= 0 && voters.contains(holder) && sim.isUp(holder) ? holder : -1;
    }
    List<Integer> ready =
        voters.stream()
            .filter(v -> sim.isUp(v) && installed.getOrDefault(v, -1L) >= s.version())
            .toList();
    if (ready.isEmpty()) {
      ready = voters.stream().filter(sim::isUp).toList();
    }
    return ready.isEmpty() ? -1 : ready.get(random.nextInt(ready.size()));
  }

  private void onSettled(Effect.RangeSettled settled) {
    Step s = step;
    if (s == null || settled.ringVersion() != s.version() || s.settled.contains(settled.range())) {
      return; // late, or of an earlier version
    }
    if (settled.settled()) {
      s.settled.add(settled.range());
      s.asks.merge(settled.range(), 1, Integer::sum); // its pending timeout is void
      return;
    }
    settlesRefused++;
    int range = settled.range();
    int ask = s.asks.merge(range, 1, Integer::sum);
    sim.schedule(
        SETTLE_RETRY_NANOS,
        () -> {
          if (s.asks.get(range) == ask) {
            askSettle(s, range);
          }
        });
  }
}
