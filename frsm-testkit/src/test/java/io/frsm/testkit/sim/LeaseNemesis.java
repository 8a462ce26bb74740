package io.frsm.testkit.sim;

/**
 * The lease faults (docs/DESIGN.md "How it is tested"): process pauses longer than the lease (the
 * node handles nothing, then resumes with beliefs that expired meanwhile, its monotonic clock
 * having jumped), forced leader changes that revoke a holder without telling it (so two nodes
 * believe they lead a range until the old lease runs out), cuts between a node and the coordination
 * service (its session expires; a successor is granted), and hand-backs on purpose (the holder
 * releases its lease and marks the term released; a successor that finds the mark skips its wait),
 * which land among the forced changes and pauses: a release marked too early lets two leases
 * overlap.
 */
public final class LeaseNemesis {
  private final Simulation sim;
  private final LeaseService service;
  private final SimRandom random;
  private final long leaseNanos;
  private final double pausesPerSecond;
  private final double handoversPerSecond;
  private final double serviceCutsPerSecond;
  private final double handBacksPerSecond;
  private boolean active;
  private long pauses;
  private long handovers;
  private long serviceCuts;
  private long handBacks;

  public LeaseNemesis(
      Simulation sim,
      LeaseService service,
      SimRandom random,
      double pausesPerSecond,
      double handoversPerSecond,
      double serviceCutsPerSecond,
      double handBacksPerSecond) {
    this.sim = sim;
    this.service = service;
    this.random = random;
    this.leaseNanos = sim.coreConfig().leases().lease().toNanos();
    this.pausesPerSecond = pausesPerSecond;
    this.handoversPerSecond = handoversPerSecond;
    this.serviceCutsPerSecond = serviceCutsPerSecond;
    this.handBacksPerSecond = handBacksPerSecond;
  }

  public void start() {
    active = true;
    if (pausesPerSecond > 0) {
      sim.schedule(random.exponentialNanos(pausesPerSecond), this::pause);
    }
    if (handoversPerSecond > 0) {
      sim.schedule(random.exponentialNanos(handoversPerSecond), this::handover);
    }
    if (serviceCutsPerSecond > 0) {
      sim.schedule(random.exponentialNanos(serviceCutsPerSecond), this::cutFromService);
    }
    if (handBacksPerSecond > 0) {
      sim.schedule(random.exponentialNanos(handBacksPerSecond), this::handBack);
    }
  }

  /** Stops injecting; heals cuts from the service. */
  public void stop() {
    active = false;
    for (int n = 0; n < sim.nodeCount(); n++) {
      service.cut(n, false);
    }
  }

  public String summary() {
    return pauses
        + " pauses, "
        + handovers
        + " handovers, "
        + serviceCuts
        + " service cuts, "
        + handBacks
        + " hand-backs";
  }

  private void pause() {
    if (!active) {
      return;
    }
    // Mostly the holder of a range (the interesting victim), sometimes any node. Long pauses
    // outlive the lease; medium ones outlive the session but not always the lease, so the node
    // resumes still holding a lease while a successor was granted meanwhile.
    int range = random.nextInt(sim.coreConfig().placement().rangeCount());
    int node = service.holder(range);
    if (node < 0 || random.chance(0.25)) {
      node = random.nextInt(sim.nodeCount());
    }
    double kind = random.chance(0.4) ? 0 : random.chance(0.67) ? 1 : 2;
    long length =
        kind == 0
            ? random.between(leaseNanos + leaseNanos / 4, 3 * leaseNanos)
            : kind == 1
                ? random.between(leaseNanos / 2, leaseNanos)
                : random.between(leaseNanos / 20, leaseNanos / 2);
    pauses++;
    sim.pause(node, length);
    sim.schedule(random.exponentialNanos(pausesPerSecond), this::pause);
  }

  private void handover() {
    if (!active) {
      return;
    }
    int range = random.nextInt(sim.coreConfig().placement().rangeCount());
    handovers++;
    service.forceHandover(range, random.nextInt(sim.nodeCount()));
    if (handBacksPerSecond > 0 && random.chance(0.3)) {
      // The new holder hands the range on while it may still be inside its successor wait: the
      // case where marking the release clean too early would let the old lease overlap.
      sim.schedule(
          random.between(0, leaseNanos / 2),
          () -> {
            if (active) {
              handBacks++;
              service.handBack(range, random.nextInt(sim.nodeCount()));
            }
          });
    }
    sim.schedule(random.exponentialNanos(handoversPerSecond), this::handover);
  }

  private void cutFromService() {
    if (!active) {
      return;
    }
    int node = random.nextInt(sim.nodeCount());
    serviceCuts++;
    service.cut(node, true);
    sim.schedule(random.between(leaseNanos / 2, 3 * leaseNanos), () -> service.cut(node, false));
    sim.schedule(random.exponentialNanos(serviceCutsPerSecond), this::cutFromService);
  }

  private void handBack() {
    if (!active) {
      return;
    }
    int range = random.nextInt(sim.coreConfig().placement().rangeCount());
    handBacks++;
    service.handBack(range, random.nextInt(sim.nodeCount()));
    sim.schedule(random.exponentialNanos(handBacksPerSecond), this::handBack);
  }
}
