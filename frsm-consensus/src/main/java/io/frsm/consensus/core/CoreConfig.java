package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one node's core.
 *
 * @param placement the ranges and each range's replica set (node ids, in preference order for
 *     partial rounds); also the ranges that have terms and leases.
 * @param boundedDelayMicros {@code T}: no prepare or accept for an operation starts after {@code τ
 *     + T} by this node's wall clock.
 * @param hedgeNanos after this long without a quorum, a round sent to {@code q} replicas is widened
 *     to all of them.
 * @param roundTimeoutNanos after this long without a quorum, a round has failed (the key turns
 *     cold; a prepare or accept is retried after back-off).
 * @param backoffMaxNanos a failed round waits a uniform random time below this before the next
 *     prepare, so competing coordinators do not duel forever.
 * @param warmKeysMax how many keys' warm state (in memory only) a node keeps; the least recently
 *     used is forgotten first, which only costs a prepare.
 * @param sabotage deliberate protocol bugs for checker tests; empty in production.
 * @param leases range terms, leases and leader-only reads ({@link LeaseConfig#disabled()}: off).
 * @param modes how a leaseholder answers: leader-only reads on or off, and a forced share of cold
 *     CAS for experiments ({@link Modes#DEFAULT} in production).
 */
public record CoreConfig(
    Placement placement,
    long boundedDelayMicros,
    long hedgeNanos,
    long roundTimeoutNanos,
    long backoffMaxNanos,
    int warmKeysMax,
    Set<Sabotage> sabotage,
    LeaseConfig leases,
    Modes modes) {

  /**
   * @param leaderOnlyReads whether a leaseholder in leader-only mode answers gets (and doomed CAS)
   *     from its local cell; false: every read goes to a quorum, leases still order writes
   * @param forcedColdCasShare the share of CAS that prepare although their key is warm, in {@code
   *     [0, 1]}: the paper's Figure 16 experiment varies the multi-phase fraction with it. 0 in
   *     production; a forced prepare costs a round, never safety (any CAS may run cold).
   */
  public record Modes(boolean leaderOnlyReads, double forcedColdCasShare) {
    public static final Modes DEFAULT = new Modes(true, 0);

    public Modes {
      if (!(forcedColdCasShare >= 0 && forcedColdCasShare <= 1)) {
        throw new IllegalArgumentException(
            "forcedColdCasShare must be in [0, 1], was " + forcedColdCasShare);
      }
    }
  }

  public CoreConfig {
    Objects.requireNonNull(placement);
    if (boundedDelayMicros <= 0
        || hedgeNanos <= 0
        || roundTimeoutNanos < hedgeNanos
        || backoffMaxNanos <= 0
        || warmKeysMax <= 0) {
      throw new IllegalArgumentException("bad timing settings: " + this);
    }
    sabotage = sabotage.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sabotage));
    Objects.requireNonNull(sabotage);
    Objects.requireNonNull(leases);
    Objects.requireNonNull(modes);
  }

  /** Defaults for a LAN cluster: T = 5 s, hedge 20 ms, round timeout 200 ms, back-off 50 ms. */
  public static CoreConfig defaults(List<Integer> replicas) {
    return defaults(Placement.single(replicas));
  }

  /** {@link #defaults(List)} over several ranges. */
  public static CoreConfig defaults(Placement placement) {
    return new CoreConfig(
        placement,
        5_000_000L,
        20_000_000L,
        200_000_000L,
        50_000_000L,
        1 << 20,
        Set.of(),
        LeaseConfig.disabled(),
        Modes.DEFAULT);
  }

  public CoreConfig withSabotage(Set<Sabotage> broken) {
    return new CoreConfig(
        placement,
        boundedDelayMicros,
        hedgeNanos,
        roundTimeoutNanos,
        backoffMaxNanos,
        warmKeysMax,
        broken,
        leases,
        modes);
  }

  public CoreConfig withTimings(
      long boundedDelayMicros, long hedgeNanos, long roundTimeoutNanos, long backoffMaxNanos) {
    return new CoreConfig(
        placement,
        boundedDelayMicros,
        hedgeNanos,
        roundTimeoutNanos,
        backoffMaxNanos,
        warmKeysMax,
        sabotage,
        leases,
        modes);
  }

  public CoreConfig withLeases(LeaseConfig leaseConfig) {
    return new CoreConfig(
        placement,
        boundedDelayMicros,
        hedgeNanos,
        roundTimeoutNanos,
        backoffMaxNanos,
        warmKeysMax,
        sabotage,
        leaseConfig,
        modes);
  }

  public CoreConfig withModes(Modes newModes) {
    return new CoreConfig(
        placement,
        boundedDelayMicros,
        hedgeNanos,
        roundTimeoutNanos,
        backoffMaxNanos,
        warmKeysMax,
        sabotage,
        leases,
        newModes);
  }

  public CoreConfig withPlacement(Placement newPlacement) {
    return new CoreConfig(
        newPlacement,
        boundedDelayMicros,
        hedgeNanos,
        roundTimeoutNanos,
        backoffMaxNanos,
        warmKeysMax,
        sabotage,
        leases,
        modes);
  }

  /** The replica set of {@code key}'s range, natural leader first. */
  public List<Integer> replicasOf(Key key) {
    return placement.replicasOf(key);
  }

  /** {@code q = ⌊n/2⌋ + 1}. */
  public static int quorum(int n) {
    return n / 2 + 1;
  }

  public boolean broken(Sabotage s) {
    return sabotage.contains(s);
  }
}
