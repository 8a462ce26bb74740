package io.frsm.server.multiprocess;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * One fault of the multi-process fault suite's schedule: its kind, how long it lasts, and the two
 * choices a seed makes for it ({@code pick}: which follower, which direction, the sign of a skew).
 * The bound is the longest gap without an answer on a counter key that the suite accepts for it
 * (docs/OPERATIONS.md "Partial failures" gives the measured figures), from the cluster's timings.
 */
record Fault(Fault.Kind kind, Duration length, int pick) {
  /** The timings the bounds derive from. */
  record Timings(Duration lease, Duration session, Duration stepDownAfter, Duration slack) {}

  enum Kind {
    /** kill -9 of the hot counter's leader, restarted after the fault's length. */
    KILL_LEADER(1_000, 4_000),
    /** kill -9 of one of its followers. */
    KILL_FOLLOWER(1_000, 4_000),
    /** kill -9 of the leader and one follower at once: no quorum until they are back. */
    KILL_TWO(1_000, 3_000),
    /** SIGSTOP of the leader for longer than the lease, then SIGCONT. */
    PAUSE_LEADER(2_500, 4_500),
    /** The leader and one follower cut from each other, both ways; ZooKeeper reachable. */
    PARTITION_PAIR(3_000, 5_000),
    /** The leader cut from both peers, both ways, but not from ZooKeeper. */
    ISOLATE_LEADER(3_000, 6_000),
    /** The leader drops what it sends to both peers, or what it receives from them. */
    ONE_WAY_LEADER(3_000, 5_000),
    /** The leader cut from ZooKeeper only, shorter or longer than its session. */
    CUT_LEADER_FROM_ZOOKEEPER(1_000, 6_000),
    /** ZooKeeper stopped and started again on its port and data, shorter than the lease. */
    RESTART_ZOOKEEPER(500, 1_500),
    /** One node's wall clock skewed by less than ε. */
    SKEW_WITHIN_EPSILON(2_000, 4_000),
    /** One node's wall clock skewed by 2–4 ε. */
    SKEW_BEYOND_EPSILON(2_000, 4_000);

    private final long minMillis;
    private final long maxMillis;

    Kind(long minMillis, long maxMillis) {
      this.minMillis = minMillis;
      this.maxMillis = maxMillis;
    }
  }

  static Fault draw(Kind kind, SplittableRandom random) {
    return new Fault(
        kind,
        Duration.ofMillis(random.nextLong(kind.minMillis, kind.maxMillis + 1)),
        random.nextInt(1 << 16));
  }

  /**
   * The longest gap accepted. Faults a quorum rides out (a follower, a pair, ZooKeeper shorter than
   * the lease, skew): 2·L + slack. Faults that move the range: the way it moves (a step-down, or a
   * session expiry and a hand-back) plus the lease waits, and slack. Faults without a quorum or
   * with the leader frozen: as long as the fault, then as long as a hand-over.
   *
   * @param restart how long the fault's killed JVMs took from their start to serving again
   */
  Duration bound(Timings t, Duration restart) {
    Duration twoLeases = t.lease().multipliedBy(2);
    return switch (kind) {
      case KILL_FOLLOWER,
              PARTITION_PAIR,
              RESTART_ZOOKEEPER,
              SKEW_WITHIN_EPSILON,
              SKEW_BEYOND_EPSILON ->
          twoLeases.plus(t.slack());
      case ISOLATE_LEADER, ONE_WAY_LEADER -> t.stepDownAfter().plus(twoLeases).plus(t.slack());
        // The session expires, the stand-in waits out the lease; when the victim is back soon, the
        // range goes back to it, another lease wait if that hand-back is not clean.
      case KILL_LEADER, CUT_LEADER_FROM_ZOOKEEPER ->
          t.session().plus(twoLeases).plus(t.lease()).plus(t.slack());
        // Down for the fault's length, then the JVMs' start (measured: 3-8 s on the loaded
        // machine), then as a kill of the leader: a session and the lease waits.
      case KILL_TWO -> length.plus(restart).plus(t.session()).plus(twoLeases).plus(t.slack());
      case PAUSE_LEADER -> length.plus(twoLeases).plus(t.slack());
    };
  }

  @Override
  public String toString() {
    return kind + " for " + length.toMillis() + " ms (pick " + pick + ")";
  }
}
