package io.frsm.testkit.sim;

import io.frsm.consensus.core.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Membership changes during the fault phase (issue 22), one at a time as the admin commands allow,
 * each a chain of {@link MembershipOrchestrator} steps, while the fault mix crashes, partitions and
 * drops and the workload runs:
 *
 * <ul>
 *   <li><b>grow</b>: a new node (fresh id, empty store) joins some ranges as a learner, then is
 *       promoted to voter;
 *   <li><b>move</b>: a grow, then one other voter leaves each of those ranges (rebalancing, or a
 *       decommission once a node leaves its last range);
 *   <li><b>shrink</b>: a voter leaves a range that has four or more;
 *   <li><b>replace</b>: a member dies for good; a new id joins its ranges as a learner, is
 *       promoted, and the dead id is dropped.
 * </ul>
 *
 * Meanwhile a random node's watch of the ring is cut now and then, so nodes run several versions
 * apart. A node that no longer replicates any range is retired (its id never comes back) and stops
 * a little later: until then it may still run at an older version. An operation in progress when
 * the fault phase ends runs to its end. With {@link MembershipMutation#WIPED_REJOINS_UNDER_OLD_ID}
 * a replace instead wipes the member's disk and restarts it under its old id.
 */
final class MembershipNemesis {
  /**
   * Grows and shrinks keep the voters per range within these (three: the replication factor the
   * runs start with); a replace passes through one more, the new voter joining before the dead one
   * leaves.
   */
  private static final int VOTERS_MIN = 3;

  private static final int VOTERS_MAX = 5;

  /** New ids per run at most (the lease service has room for more). */
  private static final int ADDED_MAX = 40;

  private static final long RETIRED_STOP_DELAY_MAX_NANOS = 60_000_000L;

  /** Cuts of one node's watch of the ring, per second of the fault phase, and their lengths. */
  private static final double WATCH_CUTS_PER_SECOND = 8;

  private static final long WATCH_CUT_MIN_NANOS = 10_000_000L;
  private static final long WATCH_CUT_MAX_NANOS = 200_000_000L;

  private final Simulation sim;
  private final MembershipOrchestrator orchestrator;
  private final LeaseService leases;
  private final SimRandom random;
  private final double operationsPerSecond;
  private final Set<MembershipMutation> mutations;
  private final int initialNodes;
  private boolean active;
  private long started;
  private long completed;
  private long wipes;

  private MembershipNemesis(
      Simulation sim,
      LeaseService leases,
      SimRandom random,
      double operationsPerSecond,
      Set<MembershipMutation> mutations) {
    this.sim = sim;
    this.leases = leases;
    this.random = random;
    this.operationsPerSecond = operationsPerSecond;
    this.mutations = Set.copyOf(mutations);
    this.initialNodes = sim.nodeCount();
    this.orchestrator = new MembershipOrchestrator(sim, random.fork(), leases, mutations);
  }

  /**
   * A nemesis for {@code sim} (and its lease service, null without leases), started and stopped
   * with the simulation's fault phase.
   */
  static MembershipNemesis install(
      Simulation sim,
      LeaseService leases,
      SimRandom random,
      double operationsPerSecond,
      Set<MembershipMutation> mutations) {
    MembershipNemesis nemesis =
        new MembershipNemesis(sim, leases, random, operationsPerSecond, mutations);
    sim.onFaultPhase(nemesis::start, nemesis::stop);
    return nemesis;
  }

  void start() {
    active = true;
    scheduleNext();
    sim.schedule(random.exponentialNanos(WATCH_CUTS_PER_SECOND), this::cutWatch);
  }

  /** A random node misses ring versions for a while: it runs behind, maybe by several. */
  private void cutWatch() {
    if (!active) {
      return;
    }
    orchestrator.cutWatch(
        random.nextInt(sim.nodeCount()), random.between(WATCH_CUT_MIN_NANOS, WATCH_CUT_MAX_NANOS));
    sim.schedule(random.exponentialNanos(WATCH_CUTS_PER_SECOND), this::cutWatch);
  }

  void stop() {
    active = false;
  }

  /** Operations started and finished (every step installed and settled). */
  long started() {
    return started;
  }

  long completed() {
    return completed;
  }

  long wipes() {
    return wipes;
  }

  MembershipOrchestrator orchestrator() {
    return orchestrator;
  }

  private void scheduleNext() {
    sim.schedule(random.exponentialNanos(operationsPerSecond), this::next);
  }

  private void done() {
    completed++;
    if (active) {
      scheduleNext();
    }
  }

  private void next() {
    if (!active) {
      return;
    }
    started++;
    Placement p = sim.ring().latest();
    List<Integer> growable = new ArrayList<>();
    List<Integer> shrinkable = new ArrayList<>();
    for (int r = 0; r < p.rangeCount(); r++) {
      if (p.replicas(r).size() < VOTERS_MAX) {
        growable.add(r);
      }
      if (p.replicas(r).size() > VOTERS_MIN) {
        shrinkable.add(r);
      }
    }
    boolean mayAdd = sim.nodeCount() < initialNodes + ADDED_MAX;
    int dice = random.nextInt(4);
    if (dice == 0 && !shrinkable.isEmpty()) {
      shrink(shrinkable.get(random.nextInt(shrinkable.size())));
    } else if (dice == 1 && mayAdd && !growable.isEmpty()) {
      grow(someOf(growable), false);
    } else if (dice == 2 && mayAdd) {
      replace(p);
    } else if (mayAdd && !growable.isEmpty()) {
      grow(someOf(growable), true);
    } else if (!shrinkable.isEmpty()) {
      shrink(shrinkable.get(random.nextInt(shrinkable.size())));
    } else {
      done();
    }
  }

  /** One of {@code ranges} at random, and each other one with even odds. */
  private List<Integer> someOf(List<Integer> ranges) {
    int first = ranges.get(random.nextInt(ranges.size()));
    List<Integer> chosen = new ArrayList<>();
    for (int r : ranges) {
      if (r == first || random.chance(0.5)) {
        chosen.add(r);
      }
    }
    return chosen;
  }

  private int addNode() {
    int node = sim.addNode();
    if (leases != null) {
      leases.nodeAdded(node);
    }
    return node;
  }

  /**
   * Learner, then voter, of {@code ranges}; with {@code move}, then one other voter leaves each.
   */
  private void grow(List<Integer> ranges, boolean move) {
    int node = addNode();
    join(
        node,
        ranges,
        () -> {
          if (!move) {
            done();
            return;
          }
          Placement p = sim.ring().latest();
          List<Integer> leaving = new ArrayList<>();
          for (int r : ranges) {
            List<Integer> others = new ArrayList<>(p.replicas(r));
            others.remove(Integer.valueOf(node));
            leaving.add(others.get(random.nextInt(others.size())));
          }
          drop(ranges, leaving, this::done);
        });
  }

  private void shrink(int range) {
    List<Integer> voters = sim.ring().latest().replicas(range);
    drop(List.of(range), List.of(voters.get(random.nextInt(voters.size()))), this::done);
  }

  /** A member dies for good and a new id takes its ranges (or, mutated, it rejoins wiped). */
  private void replace(Placement p) {
    List<Integer> members = new ArrayList<>(p.nodes());
    int dead = members.get(random.nextInt(members.size()));
    if (mutations.contains(MembershipMutation.WIPED_REJOINS_UNDER_OLD_ID)) {
      wipes++;
      sim.wipeAndRestart(dead);
      done();
      return;
    }
    List<Integer> ranges = new ArrayList<>();
    for (int r = 0; r < p.rangeCount(); r++) {
      if (p.replicas(r).contains(dead)) {
        ranges.add(r);
      }
    }
    sim.stopForGood(dead);
    int node = addNode();
    join(node, ranges, () -> drop(ranges, ranges.stream().map(r -> dead).toList(), this::done));
  }

  /** Node {@code node} becomes a learner of {@code ranges}, then a voter (two versions). */
  private void join(int node, List<Integer> ranges, Runnable then) {
    Placement p = sim.ring().latest();
    Placement learnerStep = p.atVersion(p.ringVersion() + 1);
    for (int r : ranges) {
      List<Integer> learners = new ArrayList<>(p.learners(r));
      learners.add(node);
      learnerStep = learnerStep.withRange(p.ringVersion() + 1, r, p.replicas(r), learners);
    }
    orchestrator.publish(
        learnerStep,
        () -> {
          Placement q = sim.ring().latest();
          Placement promoted = q.atVersion(q.ringVersion() + 1);
          for (int r : ranges) {
            List<Integer> voters = new ArrayList<>(q.replicas(r));
            voters.add(node);
            List<Integer> learners = new ArrayList<>(q.learners(r));
            learners.remove(Integer.valueOf(node));
            promoted = promoted.withRange(q.ringVersion() + 1, r, voters, learners);
          }
          orchestrator.publish(promoted, then);
        });
  }

  /**
   * Voter {@code leaving.get(i)} leaves range {@code ranges.get(i)} (one version); a node left in
   * no range is retired and stops a little later.
   */
  private void drop(List<Integer> ranges, List<Integer> leaving, Runnable then) {
    Placement p = sim.ring().latest();
    Placement next = p.atVersion(p.ringVersion() + 1);
    for (int i = 0; i < ranges.size(); i++) {
      int r = ranges.get(i);
      List<Integer> voters = new ArrayList<>(next.replicas(r));
      voters.remove(leaving.get(i));
      next = next.withRange(p.ringVersion() + 1, r, voters, next.learners(r));
    }
    Placement published = next;
    Set<Integer> gone = new TreeSet<>(leaving);
    gone.removeAll(published.nodes());
    orchestrator.publish(
        published,
        () -> {
          for (int node : gone) {
            sim.ring().retire(node);
            sim.schedule(
                random.between(0, RETIRED_STOP_DELAY_MAX_NANOS), () -> sim.stopForGood(node));
          }
          then.run();
        });
  }
}
