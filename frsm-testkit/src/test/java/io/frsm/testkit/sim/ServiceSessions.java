package io.frsm.testkit.sim;

import io.frsm.consensus.core.LeaseConfig;
import java.util.Arrays;

/**
 * The sessions of the {@link CoordinationService}: per node the incarnation whose requests it heard
 * last and when, timed out by the service's clock; with session-backed leases ({@link #backLeases})
 * the longer timeout, the service's own clock and its restarts.
 */
final class ServiceSessions {
  private final Simulation sim;
  private final SimRandom random;
  private final LeaseConfig config;
  private long timeoutNanos;
  private final long[] lastHeardNanos;
  private final int[] incarnation;

  /** Session-backed leases ({@link #backLeases}); null: off. */
  private SessionBackedLeases backing;

  /** The service is down (restarting): nobody reaches it, and it expires no session. */
  private boolean down;

  private long restarts;

  ServiceSessions(Simulation sim, SimRandom random, int capacity) {
    this.sim = sim;
    this.random = random;
    this.config = sim.coreConfig().leases();
    // Shorter than the lease on purpose: the service may move leadership while the old holder's
    // lease still runs; only the lease rules, not session timing, may keep reads safe.
    this.timeoutNanos = config.lease().toNanos() * 3 / 8;
    this.lastHeardNanos = new long[capacity];
    Arrays.fill(lastHeardNanos, Long.MIN_VALUE / 2);
    this.incarnation = new int[capacity];
  }

  /** See {@link LeaseService#backLeasesWithSessions}. */
  void backLeases(SessionBackedLeases.Mistake mistake, double restartsPerSecond, int ranges) {
    this.timeoutNanos = config.lease().toNanos();
    this.backing =
        new SessionBackedLeases(
            mistake, timeoutNanos, config.driftPartsPerMillion(), lastHeardNanos.length, ranges);
    if (restartsPerSecond > 0) {
      sim.schedule(random.exponentialNanos(restartsPerSecond), () -> restart(restartsPerSecond));
    }
  }

  /** Session-backed leases, or null when off. */
  SessionBackedLeases backing() {
    return backing;
  }

  long timeoutNanos() {
    return timeoutNanos;
  }

  /** How many nodes the service has room for (ids are dense). */
  int capacity() {
    return lastHeardNanos.length;
  }

  long restarts() {
    return restarts;
  }

  boolean down() {
    return down;
  }

  private void restart(double restartsPerSecond) {
    long lease = config.lease().toNanos();
    long downFor = random.between(lease / 4, 2 * lease);
    if (!down) {
      restarts++;
      down = true;
      long downAt = serviceNanos();
      sim.schedule(
          downFor,
          () -> {
            down = false;
            // Sessions alive when it went down get a fresh timeout: their timers restart.
            for (int n = 0; n < lastHeardNanos.length; n++) {
              if (downAt - lastHeardNanos[n] <= timeoutNanos) {
                lastHeardNanos[n] = serviceNanos();
              }
            }
          });
    }
    sim.schedule(
        downFor + random.exponentialNanos(restartsPerSecond), () -> restart(restartsPerSecond));
  }

  boolean alive(int node) {
    return sim.isUp(node)
        && incarnation[node] == sim.incarnation(node)
        && serviceNanos() - lastHeardNanos[node] <= timeoutNanos;
  }

  /** The incarnation of node {@code node} whose requests the service heard last. */
  int incarnation(int node) {
    return incarnation[node];
  }

  /** With session-backed leases: node {@code node}'s session timed out before this request. */
  boolean expiredBefore(int node) {
    return backing != null && serviceNanos() - lastHeardNanos[node] > timeoutNanos;
  }

  /** A request of {@code incarnation} of node {@code node} reached the service. */
  void heard(int node, int incarnation) {
    this.incarnation[node] = incarnation;
    lastHeardNanos[node] = serviceNanos();
  }

  /** The service's clock: real time, or its own clock with session-backed leases. */
  private long serviceNanos() {
    return backing == null ? sim.nowNanos() : backing.serviceNanos(sim.nowNanos());
  }
}
