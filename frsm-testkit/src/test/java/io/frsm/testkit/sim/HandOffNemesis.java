package io.frsm.testkit.sim;

/**
 * Hand-offs instead of scans (docs/PROTOCOL.md "Hand-off instead of a scan") as the workload's
 * faults meet them. An episode: the natural leader of a range hands it to a stand-in through {@link
 * LeaseService#handOff}, is then cut off from its peers for a while (away: the stand-in's writes
 * reach the other replicas only), and once back gets the range handed back by the stand-in, with a
 * shipment that should spare it the scan. Sometimes either side crashes at a random moment of an
 * episode (before a drain starts, while it settles, between the shipment and the import, between
 * the import and the release). The lease nemesis and the fault mix go on meanwhile (pauses, forced
 * handovers, cuts from the service, loss, partitions, crashes).
 *
 * <p>A <em>kill</em> episode (docs/PROTOCOL.md "A killed holder: covering its term"): the natural
 * leader holding its range is killed outright — no hand-off, its unlogged commits lost, perhaps
 * with accepts of its term in flight — and stays down while a stand-in is granted the next term
 * (after the session expires and the successor wait), scans it and serves; once it is back, the
 * stand-in hands the range back with a shipment that, if its scan completed, covers the killed
 * term, so the returning node may import on its entry base instead of scanning.
 */
final class HandOffNemesis {
  private final Simulation sim;
  private final LeaseService service;
  private final SimRandom random;
  private final double episodesPerSecond;
  private final double crashChance;
  private final long leaseNanos;
  private final long drainTimeoutNanos;
  private final boolean[] away;

  /** Per node: until when its links drop half the messages after it came back (flapping). */
  private final long[] flakyUntilNanos;

  private final double killChance;
  private boolean active;
  private long crashes;
  private long kills;

  HandOffNemesis(
      Simulation sim,
      LeaseService service,
      SimRandom random,
      double episodesPerSecond,
      double crashChance) {
    this.sim = sim;
    this.service = service;
    this.random = random;
    this.episodesPerSecond = episodesPerSecond;
    this.crashChance = crashChance;
    this.killChance = KILL_CHANCE;
    this.leaseNanos = sim.coreConfig().leases().lease().toNanos();
    // A drain is a few round trips of settle reads; give it about a lease before handing back.
    this.drainTimeoutNanos = leaseNanos;
    this.away = new boolean[sim.nodeCount()];
    this.flakyUntilNanos = new long[sim.nodeCount()];
  }

  /** Of the episodes that find the natural leader holding its range, the share that kill it. */
  static final double KILL_CHANCE = 0.3;

  long kills() {
    return kills;
  }

  void start() {
    active = true;
    sim.setFilter((from, to, m) -> from != to && (cutOff(from) || cutOff(to)));
    sim.schedule(random.exponentialNanos(episodesPerSecond), this::episode);
  }

  /** Stops starting episodes and brings every away node back. */
  void stop() {
    active = false;
    java.util.Arrays.fill(away, false);
    java.util.Arrays.fill(flakyUntilNanos, 0);
  }

  long crashes() {
    return crashes;
  }

  /** An away node hears and reaches no peer; a node just back loses half its messages. */
  private boolean cutOff(int node) {
    return away[node] || (sim.nowNanos() < flakyUntilNanos[node] && random.chance(0.5));
  }

  private void episode() {
    if (!active) {
      return;
    }
    int nodes = sim.nodeCount();
    int range = random.nextInt(sim.coreConfig().placement().rangeCount());
    int natural = Math.floorMod(range, nodes);
    int holder = service.holder(range);
    if (holder == natural && !away[natural] && random.chance(killChance)) {
      kill(range, natural);
    } else if (holder == natural && !away[natural]) {
      int standIn = Math.floorMod(natural + 1 + random.nextInt(nodes - 1), nodes);
      service.handOff(range, standIn, drainTimeoutNanos);
      long leaves = leaseNanos / 4;
      long absence = random.between(leaseNanos / 2, 3 * leaseNanos);
      sim.schedule(leaves, () -> away[natural] = active);
      sim.schedule(
          leaves + absence,
          () -> {
            away[natural] = false;
            flakyUntilNanos[natural] = sim.nowNanos() + leaseNanos;
            sim.schedule(
                random.between(leaseNanos / 20, leaseNanos / 4),
                () -> {
                  int now = service.holder(range);
                  if (active && now >= 0 && now != natural) {
                    service.handOff(range, natural, drainTimeoutNanos);
                    maybeCrash(now, natural);
                  }
                });
          });
      maybeCrash(natural, standIn);
    } else if (holder >= 0 && holder != natural) {
      service.handOff(range, natural, drainTimeoutNanos);
      maybeCrash(holder, natural);
    }
    sim.schedule(random.exponentialNanos(episodesPerSecond), this::episode);
  }

  /**
   * Kills {@code natural}, the holder of {@code range}, for long enough that a stand-in takes the
   * range over (its session expires after {@code 3L/8}, the successor waits {@code L·(1+ρ)}, then
   * persists and scans); once it is back, the range is handed back to it.
   */
  private void kill(int range, int natural) {
    if (!sim.isUp(natural) || sim.isStopped(natural)) {
      return;
    }
    kills++;
    long down = random.between(2 * leaseNanos, 4 * leaseNanos);
    sim.killFor(natural, down);
    sim.schedule(
        down + random.between(leaseNanos / 2, 2 * leaseNanos),
        () -> {
          int now = service.holder(range);
          if (active && now >= 0 && now != natural && sim.isUp(natural)) {
            service.handOff(range, natural, drainTimeoutNanos);
          }
        });
  }

  /** With {@link #crashChance}: one side crashes (and restarts) at a random moment soon. */
  private void maybeCrash(int holder, int successor) {
    if (!random.chance(crashChance)) {
      return;
    }
    int victim = random.chance(0.5) ? holder : successor;
    sim.schedule(
        random.between(0, drainTimeoutNanos / 2),
        () -> {
          if (active && sim.isUp(victim) && !sim.isStopped(victim)) {
            crashes++;
            sim.crashAndRestart(victim);
          }
        });
  }
}
