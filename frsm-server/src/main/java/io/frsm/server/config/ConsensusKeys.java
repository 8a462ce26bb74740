package io.frsm.server.config;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.ShardRouting;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code consensus} section: the per-key Paxos core's timings, leases, read mode,
 * its shards and the clock cache. The rules between them (the hedge below the round timeout, the
 * tick at most the hedge) are {@link ConfigRules}'.
 */
public final class ConsensusKeys {
  private ConsensusKeys() {}

  public static final ConfigKey<Duration> BOUNDED_DELAY =
      ConfigKey.of("consensus.boundedDelay", ValueType.DURATION, Duration.ofSeconds(5))
          .range(Timings.ONE_MS, Timings.MAX)
          .doc("T: no round for an operation starts later than T after its invocation");

  public static final ConfigKey<Duration> CLOCK_SKEW_BOUND =
      ConfigKey.of("consensus.clockSkewBound", ValueType.DURATION, Duration.ofMillis(250))
          .range(Duration.ZERO, Timings.MAX)
          .doc(
              "ε, the wall-clock skew bound between nodes: a fence after an unknown create waits T + 2ε");

  public static final ConfigKey<Duration> HEDGE =
      ConfigKey.of("consensus.hedge", ValueType.DURATION, Duration.ofMillis(20))
          .range(Timings.ONE_MS, Timings.MAX)
          .option("roundTimings")
          .doc("a round without a quorum this long is sent to every replica (below roundTimeout)");

  public static final ConfigKey<Duration> ROUND_TIMEOUT =
      ConfigKey.of("consensus.roundTimeout", ValueType.DURATION, Duration.ofMillis(200))
          .range(Timings.ONE_MS, Timings.MAX)
          .option("roundTimings")
          .doc("a round without a quorum this long has failed and is retried after back-off");

  public static final ConfigKey<Duration> BACKOFF_MAX =
      ConfigKey.of("consensus.backoffMax", ValueType.DURATION, Duration.ofMillis(50))
          .range(Timings.ONE_MS, Timings.MAX)
          .option("roundTimings")
          .doc("a failed round waits a uniform random time below this before it is retried");

  /** Timers fire on ticks; the tick must also not exceed the hedge (a rule between keys). */
  public static final ConfigKey<Duration> TICK_INTERVAL =
      ConfigKey.of("consensus.tickInterval", ValueType.DURATION, Duration.ofMillis(2))
          .range(Timings.ONE_MS, Timings.MAX)
          .doc("how often the core checks its timers (at most the hedge)");

  /**
   * Renewals run every lease / 4, which must be at least a millisecond. 1.5 s by default, not
   * DESIGN.md's 2 s: a dead leader's successor waits L·(1+ρ) after its grant, so the time to repair
   * after a leader kill cannot go below that wait; at 2 s it measured 2.2–2.8 s, at 1.5 s 1.7–1.8
   * s, for 4/L renewal {@code multi}s per node and second instead of 2 (docs/BENCHMARKS.md, issue
   * 23).
   */
  public static final ConfigKey<Duration> LEASE =
      ConfigKey.of("consensus.lease", ValueType.DURATION, Duration.ofMillis(1500))
          .range(Duration.ofMillis(4), Timings.MAX)
          .doc("L, the range lease: renewed every L/4; a new leader waits L·(1+ρ) before writing");

  /**
   * The quorum watch's patience (docs/PROTOCOL.md "Step-down and the quorum watch"): a peer whose
   * answer to a request is this late counts as unreachable. Above the round timeout (a rule between
   * keys), so that one slow round is not taken for a cut-off peer; 0 turns step-down off.
   */
  public static final ConfigKey<Duration> STEP_DOWN_AFTER =
      ConfigKey.of("consensus.stepDownAfter", ValueType.DURATION, Duration.ofSeconds(1))
          .range(Duration.ZERO, Timings.MAX)
          .doc(
              "a range leader that has had no answer from a quorum of the range's replicas this long hands the range over; 0s: never");

  /** Below 10%: a drift that large is a broken clock, and leases would shrink to nothing. */
  public static final ConfigKey<Integer> CLOCK_DRIFT_PPM =
      ConfigKey.of("consensus.clockDriftPpm", ValueType.INTEGER, 1_000)
          .range(0, 99_999)
          .doc("ρ, the bound on monotonic clock drift, in parts per million");

  public static final ConfigKey<Boolean> LEADER_ONLY_READS =
      ConfigKey.of("consensus.leaderOnlyReads", ValueType.BOOLEAN, true)
          .doc(
              "range leaders answer reads from their own store under the lease; false: quorum reads");

  /** docs/PROTOCOL.md "Hand-off instead of a scan"; off until shown safe on real nodes. */
  public static final ConfigKey<Boolean> HAND_OFF =
      ConfigKey.of("consensus.handOff", ValueType.BOOLEAN, false)
          .doc(
              "a range leader handing a range over on purpose ships the keys it wrote to the successor, which then skips its range scan; false: the successor scans");

  /**
   * docs/PROTOCOL.md "Hand-off instead of a scan", "Declining": a term that wrote more keys of a
   * range is released plainly at once instead of drained.
   */
  public static final ConfigKey<Integer> HAND_OFF_MAX_KEYS =
      ConfigKey.of(
              "consensus.handOffMaxKeys",
              ValueType.INTEGER,
              CoreConfig.Modes.DEFAULT_HAND_OFF_MAX_KEYS)
          .range(1, CoreConfig.Modes.HAND_OFF_KEYS_LIMIT)
          .doc(
              "with consensus.handOff: the most keys a range leader may have written in its term and still drain and ship them; more: it releases plainly and the successor scans");

  /**
   * docs/PROTOCOL.md "Declining": the keys all of a node's hand-off drains settle at once; a
   * hand-off that does not fit what is left is released plainly.
   */
  public static final ConfigKey<Integer> HAND_OFF_DRAIN_BUDGET_KEYS =
      ConfigKey.of(
              "consensus.handOffDrainBudgetKeys",
              ValueType.INTEGER,
              io.frsm.server.zk.HandOffLimits.DEFAULT_DRAIN_BUDGET_KEYS)
          .range(1, CoreConfig.Modes.HAND_OFF_KEYS_LIMIT)
          .doc(
              "with consensus.handOff: the most written keys all of a node's hand-off drains settle at once (below consensus.handOffMaxKeys it counts as that); a hand-off that does not fit what is left releases plainly and the successor scans");

  /** docs/PROTOCOL.md "Declining": the absence limit. */
  public static final ConfigKey<Duration> HAND_OFF_MAX_ABSENCE =
      ConfigKey.of(
              "consensus.handOffMaxAbsence",
              ValueType.DURATION,
              io.frsm.server.zk.HandOffLimits.DEFAULT_MAX_ABSENCE)
          .range(Duration.ZERO, Duration.ofDays(7))
          .doc(
              "with consensus.handOff: a hand-back to a returning node drains only if the interim term lasted at most this long; longer: it releases plainly and the returning node scans");

  /** docs/PROTOCOL.md "Pacing a settle". */
  public static final ConfigKey<Integer> SETTLE_KEYS_PER_SECOND =
      ConfigKey.of("consensus.settleKeysPerSecond", ValueType.INTEGER, 0)
          .range(0, 1_000_000)
          .doc(
              "the most keys a second this node's membership settles start reading, over all its settling ranges (split evenly over its core shards); 0: unpaced");

  /**
   * docs/PROTOCOL.md "A graceful stop hands off": how long a graceful stop waits for the hand-offs
   * of the ranges it holds. Unset: two leases, the two bounds a hand-off gives itself (one to ship,
   * one for the acknowledgement).
   */
  public static final ConfigKey<Duration> HAND_OFF_STOP_WAIT =
      ConfigKey.of("consensus.handOffStopWait", ValueType.DURATION, null)
          .range(Duration.ZERO, Duration.ofMinutes(10))
          .derivedByDefault("2 × consensus.lease")
          .doc(
              "with consensus.handOff: how long a graceful stop waits for the hand-offs of the ranges the node holds, then releases the rest plainly (their successors scan); 0s: a stop releases every range plainly");

  /** 0 picks {@link NodeDefaults#coreThreads(int)} of the machine's CPUs. */
  public static final ConfigKey<Integer> CORE_THREADS =
      ConfigKey.of("consensus.coreThreads", ValueType.INTEGER, 0)
          .range(0, ShardRouting.MAX_SHARDS)
          .doc(
              "consensus core shards, each a thread owning every n-th range; 0: a quarter of the CPUs");

  public static final ConfigKey<CorePlacement> CORE_ON_TRANSPORT_LOOP =
      ConfigKey.of("consensus.coreOnTransportLoop", ValueType.CORE_PLACEMENT, CorePlacement.AUTO)
          .option("corePlacement")
          .doc(
              "run the core shards on the transport event loops (auto: with one loop and one shard)");

  public static final ConfigKey<Long> CLOCK_CACHE_BYTES =
      ConfigKey.of("consensus.clockCacheBytes", ValueType.BYTES, 64L * 1024 * 1024)
          .range(0L, Long.MAX_VALUE)
          .doc("the bound of the clock cache of the keys' consensus state over the LSM");

  static final List<ConfigKey<?>> ALL =
      List.of(
          BOUNDED_DELAY,
          CLOCK_SKEW_BOUND,
          HEDGE,
          ROUND_TIMEOUT,
          BACKOFF_MAX,
          TICK_INTERVAL,
          LEASE,
          CLOCK_DRIFT_PPM,
          STEP_DOWN_AFTER,
          LEADER_ONLY_READS,
          HAND_OFF,
          HAND_OFF_MAX_KEYS,
          HAND_OFF_DRAIN_BUDGET_KEYS,
          HAND_OFF_MAX_ABSENCE,
          SETTLE_KEYS_PER_SECOND,
          HAND_OFF_STOP_WAIT,
          CORE_THREADS,
          CORE_ON_TRANSPORT_LOOP,
          CLOCK_CACHE_BYTES);
}
