package io.frsm.testkit.sim;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.Sabotage;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A scripted simulation of three nodes over three ranges (seed 7, a fixed 1 ms network delay, no
 * faults) in which the test plays the lease service: it grants range terms by hand, renews each
 * granted lease every {@code L/4} until told to stop, and cuts nodes off the network. What the
 * range scan tests ({@link RangeScanTest}, {@link HotKeysFirstTest}) share.
 */
final class ScriptedRanges {
  static final long DELAY_MICROS = 1_000;
  static final LeaseConfig LEASES = LeaseConfig.defaults();

  /** Three ranges; range 0 wraps: (2^62, MAX] ∪ [MIN, -2^62]. */
  static final Placement PLACEMENT =
      Placement.of(
          List.of(-(1L << 62), 0L, 1L << 62),
          List.of(List.of(0, 1, 2), List.of(1, 2, 0), List.of(2, 0, 1)));

  /** How long a granted lease is renewed unless {@link #stopRenewing} ends it first. */
  private static final long RENEW_FOR_NANOS = 600_000_000_000L;

  /** How long {@link #run} waits for one operation's reply (simulated time). */
  private static final long REPLY_WAIT_NANOS = 10_000_000_000L;

  private final Simulation sim;
  private final Set<Integer> isolated = new HashSet<>();
  private final long[] renewUntil = new long[3];

  ScriptedRanges(CoreConfig.Modes modes, Set<Sabotage> sabotage) {
    sim =
        new Simulation(
            7,
            FaultMix.exact(3, DELAY_MICROS, 0),
            Simulation.simConfig(3).toBuilder()
                .leases(LEASES)
                .placement(PLACEMENT)
                .modes(modes)
                .sabotage(sabotage)
                .build(),
            1_000_000);
    sim.setFilter((from, to, m) -> isolated.contains(from) || isolated.contains(to));
  }

  Simulation sim() {
    return sim;
  }

  /** Cuts {@code node} off the network ({@code true}) or joins it back ({@code false}). */
  void isolate(int node, boolean cutOff) {
    if (cutOff) {
      isolated.add(node);
    } else {
      isolated.remove(node);
    }
  }

  /** The service grants {@code term} of {@code range} to {@code node}, then renews its lease. */
  void grant(int node, int range, long term) {
    sim.input(node, new Input.TermGranted(range, term));
    renewUntil[node] = sim.nowNanos() + RENEW_FOR_NANOS;
    renew(node, range, term);
  }

  /** The service renews none of {@code node}'s leases any more: they run out by its clock. */
  void stopRenewing(int node) {
    renewUntil[node] = 0;
  }

  private void renew(int node, int range, long term) {
    if (sim.nowNanos() <= renewUntil[node]) {
      long sent = sim.monoNanos(node);
      sim.schedule(
          DELAY_MICROS * 1000, () -> sim.input(node, new Input.LeaseRenewed(range, term, sent)));
      sim.schedule(LEASES.lease().toNanos() / 4, () -> renew(node, range, term));
    }
  }

  /** Lets {@code nanos} of simulated time pass. */
  void runFor(long nanos) {
    long until = sim.nowNanos() + nanos;
    sim.runUntil(() -> sim.nowNanos() >= until, until + 1, "time to pass");
  }

  /** Submits {@code op} at {@code node} and runs until it is answered. */
  Outcome run(int node, Operation op) {
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + REPLY_WAIT_NANOS, "reply");
    return result[0];
  }
}
