package io.frsm.consensus.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one node's core. Build one with {@link #builder(Placement)} (every setting not
 * given keeps its default) or derive one with {@link #toBuilder()}.
 *
 * @param placement the ranges and each range's replica set (node ids, in preference order for
 *     partial rounds); also the ranges that have terms and leases. The placement the core starts
 *     with: {@link Input.PlacementChanged} may change replica sets later.
 * @param boundedDelay {@code T}: no prepare or accept for an operation starts after {@code τ + T}
 *     by this node's wall clock. Counted in whole microseconds, the wall clock's unit (a finer part
 *     is dropped); at least 1 µs. Default 5 s.
 * @param hedgeDelay after this long without a quorum, a round sent to {@code q} replicas is widened
 *     to all of them; a peer that left a request unanswered this long is tried last. Positive.
 *     Default 20 ms.
 * @param roundTimeout after this long without a quorum, a round has failed (the key turns cold; a
 *     prepare or accept is retried after back-off). At least {@code hedgeDelay}. Default 200 ms.
 * @param backoffMax a failed round waits a uniform random time below this before the next prepare,
 *     so competing coordinators do not duel forever. Positive. Default 50 ms.
 * @param warmKeysMax how many keys' warm state (in memory only) a node keeps; the least recently
 *     used is forgotten first, which only costs a prepare. Also bounds the deletes waiting for
 *     their phase 1. Positive. Default 2<sup>20</sup>.
 * @param sabotage deliberate protocol bugs for checker tests; empty (the default) in production.
 * @param leases range terms, leases and leader-only reads ({@link LeaseConfig#disabled()}, the
 *     default: off).
 * @param modes how a leaseholder answers: leader-only reads on or off, and a forced share of cold
 *     CAS for experiments ({@link Modes#DEFAULT}, the default, in production).
 * @param settleKeysPerSecond the most key reads a second this core's membership settles start, over
 *     all its settling ranges ({@link SettlePace}); 0 (the default): unpaced. At least 0.
 */
public record CoreConfig(
    Placement placement,
    Duration boundedDelay,
    Duration hedgeDelay,
    Duration roundTimeout,
    Duration backoffMax,
    int warmKeysMax,
    Set<Sabotage> sabotage,
    LeaseConfig leases,
    Modes modes,
    int settleKeysPerSecond) {

  public static final Duration DEFAULT_BOUNDED_DELAY = Duration.ofSeconds(5);
  public static final Duration DEFAULT_HEDGE_DELAY = Duration.ofMillis(20);
  public static final Duration DEFAULT_ROUND_TIMEOUT = Duration.ofMillis(200);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMillis(50);
  public static final int DEFAULT_WARM_KEYS_MAX = 1 << 20;

  /** The longest duration the core can count in nanoseconds (about 292 years). */
  private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  private static final Duration ONE_MICROSECOND = Duration.ofNanos(1_000);

  /**
   * @param leaderOnlyReads whether a leaseholder in leader-only mode answers gets (and doomed CAS)
   *     from its local cell; false: every read goes to a quorum, leases still order writes
   * @param forcedColdCasShare the share of CAS that prepare although their key is warm, in {@code
   *     [0, 1]}: the paper's Figure 16 experiment varies the multi-phase fraction with it. 0 in
   *     production; a forced prepare costs a round, never safety (any CAS may run cold).
   * @param hotKeysFirst whether an operation on a key a new holder's range scan has not settled
   *     pulls the key forward (docs/PROTOCOL.md "Hot keys first"); true in production, false only
   *     to measure the scan without it
   * @param handOff hand-off instead of a scan (docs/PROTOCOL.md "Hand-off instead of a scan"): a
   *     holder tracks the keys it writes per term, {@link Input.HandOff} drains and ships them, and
   *     a successor that imports them enters leader-only mode without a scan; false (the default)
   *     until the server streams shipments
   * @param handOffMaxKeys the most written keys of a term that a hand-off's drain settles (those
   *     with an open accept or an unchosen cell; docs/PROTOCOL.md "Settle only what may be open"):
   *     a holder with more to settle in the range's term declines {@link Input.HandOff} at once
   *     ({@link Effect.HandOffDeclined}), so the range is not refused for a drain that would not
   *     fit in the lease; positive, at most {@link #HAND_OFF_KEYS_LIMIT}. Default {@link
   *     #DEFAULT_HAND_OFF_MAX_KEYS} (docs/PROTOCOL.md "Hand-off instead of a scan", "Declining")
   */
  public record Modes(
      boolean leaderOnlyReads,
      double forcedColdCasShare,
      boolean hotKeysFirst,
      boolean handOff,
      int handOffMaxKeys) {
    /**
     * Written keys per range and term a hand-off drains by default: 16 ranges of a node draining at
     * once settle 16 × 256 = 4,096 keys, about 1 s at the settle rate measured on real nodes
     * (docs/BENCHMARKS.md, the hand-off's "declined" runs) — within half of the default 2 s lease.
     */
    public static final int DEFAULT_HAND_OFF_MAX_KEYS = 256;

    /** The written-keys set a core remembers per range and term at most (2<sup>20</sup>). */
    public static final int HAND_OFF_KEYS_LIMIT = 1 << 20;

    public static final Modes DEFAULT = new Modes(true, 0);

    /** Hot keys first on. */
    public Modes(boolean leaderOnlyReads, double forcedColdCasShare) {
      this(leaderOnlyReads, forcedColdCasShare, true);
    }

    /** Hand-off off. */
    public Modes(boolean leaderOnlyReads, double forcedColdCasShare, boolean hotKeysFirst) {
      this(leaderOnlyReads, forcedColdCasShare, hotKeysFirst, false);
    }

    /** Hand-off's cap at its default. */
    public Modes(
        boolean leaderOnlyReads, double forcedColdCasShare, boolean hotKeysFirst, boolean handOff) {
      this(leaderOnlyReads, forcedColdCasShare, hotKeysFirst, handOff, DEFAULT_HAND_OFF_MAX_KEYS);
    }

    /** These modes with hand-off instead of a scan on or off. */
    public Modes withHandOff(boolean on) {
      return new Modes(leaderOnlyReads, forcedColdCasShare, hotKeysFirst, on, handOffMaxKeys);
    }

    /** These modes with a hand-off drained only if at most {@code maxKeys} keys were written. */
    public Modes withHandOffMaxKeys(int maxKeys) {
      return new Modes(leaderOnlyReads, forcedColdCasShare, hotKeysFirst, handOff, maxKeys);
    }

    public Modes {
      if (!(forcedColdCasShare >= 0 && forcedColdCasShare <= 1)) {
        throw new IllegalArgumentException(
            "forcedColdCasShare must be in [0, 1], was " + forcedColdCasShare);
      }
      if (handOffMaxKeys < 1 || handOffMaxKeys > HAND_OFF_KEYS_LIMIT) {
        throw new IllegalArgumentException(
            "handOffMaxKeys must be in [1, " + HAND_OFF_KEYS_LIMIT + "], was " + handOffMaxKeys);
      }
    }
  }

  /**
   * @throws IllegalArgumentException naming the setting, if a duration is out of its range (see the
   *     parameters) or {@code warmKeysMax} is not positive
   */
  public CoreConfig {
    Objects.requireNonNull(placement, "placement");
    requireWithin("boundedDelay", boundedDelay, ONE_MICROSECOND);
    requireWithin("hedgeDelay", hedgeDelay, Duration.ofNanos(1));
    requireWithin("roundTimeout", roundTimeout, hedgeDelay);
    requireWithin("backoffMax", backoffMax, Duration.ofNanos(1));
    if (warmKeysMax <= 0) {
      throw new IllegalArgumentException("warmKeysMax must be positive, was " + warmKeysMax);
    }
    sabotage =
        Objects.requireNonNull(sabotage, "sabotage").isEmpty()
            ? Set.of()
            : Set.copyOf(EnumSet.copyOf(sabotage));
    Objects.requireNonNull(leases, "leases");
    Objects.requireNonNull(modes, "modes");
    if (settleKeysPerSecond < 0) {
      throw new IllegalArgumentException(
          "settleKeysPerSecond must be >= 0, was " + settleKeysPerSecond);
    }
  }

  private static void requireWithin(String name, Duration value, Duration min) {
    Objects.requireNonNull(value, name);
    if (value.compareTo(min) < 0 || value.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(
          name + " must be in [" + min + ", " + LONGEST + "], was " + value);
    }
  }

  /** Every setting at its default, one range holding every key replicated on {@code replicas}. */
  public static CoreConfig defaults(List<Integer> replicas) {
    return defaults(Placement.single(replicas));
  }

  /** Every setting at its default over {@code placement}. */
  public static CoreConfig defaults(Placement placement) {
    return builder(placement).build();
  }

  /** A builder over {@code placement} with every other setting at its default. */
  public static Builder builder(Placement placement) {
    return new Builder(placement);
  }

  /** A builder holding this configuration's settings. */
  public Builder toBuilder() {
    return new Builder(placement)
        .boundedDelay(boundedDelay)
        .hedgeDelay(hedgeDelay)
        .roundTimeout(roundTimeout)
        .backoffMax(backoffMax)
        .warmKeysMax(warmKeysMax)
        .sabotage(sabotage)
        .leases(leases)
        .modes(modes)
        .settleKeysPerSecond(settleKeysPerSecond);
  }

  /** {@code q = ⌊n/2⌋ + 1}. */
  public static int quorum(int n) {
    return n / 2 + 1;
  }

  public boolean broken(Sabotage s) {
    return sabotage.contains(s);
  }

  /**
   * Builds a {@link CoreConfig}; the settings are those of the record's parameters, checked by
   * {@link #build}. Not thread-safe.
   */
  public static final class Builder {
    private Placement placement;
    private Duration boundedDelay = DEFAULT_BOUNDED_DELAY;
    private Duration hedgeDelay = DEFAULT_HEDGE_DELAY;
    private Duration roundTimeout = DEFAULT_ROUND_TIMEOUT;
    private Duration backoffMax = DEFAULT_BACKOFF_MAX;
    private int warmKeysMax = DEFAULT_WARM_KEYS_MAX;
    private Set<Sabotage> sabotage = Set.of();
    private LeaseConfig leases = LeaseConfig.disabled();
    private Modes modes = Modes.DEFAULT;
    private int settleKeysPerSecond;

    private Builder(Placement placement) {
      this.placement = Objects.requireNonNull(placement);
    }

    public Builder placement(Placement placement) {
      this.placement = Objects.requireNonNull(placement);
      return this;
    }

    public Builder boundedDelay(Duration boundedDelay) {
      this.boundedDelay = Objects.requireNonNull(boundedDelay);
      return this;
    }

    public Builder hedgeDelay(Duration hedgeDelay) {
      this.hedgeDelay = Objects.requireNonNull(hedgeDelay);
      return this;
    }

    public Builder roundTimeout(Duration roundTimeout) {
      this.roundTimeout = Objects.requireNonNull(roundTimeout);
      return this;
    }

    public Builder backoffMax(Duration backoffMax) {
      this.backoffMax = Objects.requireNonNull(backoffMax);
      return this;
    }

    public Builder warmKeysMax(int warmKeysMax) {
      this.warmKeysMax = warmKeysMax;
      return this;
    }

    public Builder sabotage(Set<Sabotage> sabotage) {
      this.sabotage = Objects.requireNonNull(sabotage);
      return this;
    }

    public Builder leases(LeaseConfig leases) {
      this.leases = Objects.requireNonNull(leases);
      return this;
    }

    public Builder modes(Modes modes) {
      this.modes = Objects.requireNonNull(modes);
      return this;
    }

    public Builder settleKeysPerSecond(int settleKeysPerSecond) {
      this.settleKeysPerSecond = settleKeysPerSecond;
      return this;
    }

    /**
     * @throws IllegalArgumentException if a setting is out of its range (see {@link CoreConfig})
     */
    public CoreConfig build() {
      return new CoreConfig(
          placement,
          boundedDelay,
          hedgeDelay,
          roundTimeout,
          backoffMax,
          warmKeysMax,
          sabotage,
          leases,
          modes,
          settleKeysPerSecond);
    }
  }
}
