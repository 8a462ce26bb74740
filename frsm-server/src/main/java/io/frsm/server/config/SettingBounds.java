package io.frsm.server.config;

import io.frsm.consensus.core.ShardRouting;
import java.time.Duration;

/**
 * The allowed range of each numeric node setting, one table for both ways a node is configured: the
 * YAML file ({@link ConfigValidator}, which names the file's key) and the embedded builder ({@code
 * FrsmNodeBuilder}, checked in {@code NodeSettings}, which names the builder's option). Two copies
 * of the same numbers drifted once (the tick interval: 1 ms in the file, 1 ns in the builder); with
 * one table a value one entry point accepts, the other accepts too. Rules between settings (the
 * hedge below the round timeout, the tick at most the hedge, enough initial nodes for the
 * replication factor) stay beside each check, which reports them with its own names.
 */
public final class SettingBounds {
  public static final Duration ONE_MS = Duration.ofMillis(1);

  /**
   * Upper bound of every timing: no setting needs more, and it keeps every duration far from
   * overflowing the nanosecond and millisecond arithmetic of the node, the core and ZooKeeper.
   */
  public static final Duration MAX_TIMING = Duration.ofHours(1);

  /** Inclusive bounds of a whole-number setting. */
  public record Whole(long min, long max) {
    public Whole {
      if (min > max) {
        throw new IllegalArgumentException("empty bounds [" + min + ", " + max + "]");
      }
    }

    public boolean contains(long value) {
      return value >= min && value <= max;
    }

    @Override
    public String toString() {
      return "[" + min + ", " + max + "]";
    }
  }

  /** Inclusive bounds of a duration setting. */
  public record Span(Duration min, Duration max) {
    public Span {
      if (min.compareTo(max) > 0) {
        throw new IllegalArgumentException("empty bounds [" + min + ", " + max + "]");
      }
    }

    public boolean contains(Duration value) {
      return value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
    }

    @Override
    public String toString() {
      return "[" + Units.format(min) + ", " + Units.format(max) + "]";
    }
  }

  public static final Whole REPLICATION_FACTOR = new Whole(1, FrsmConfig.MAX_REPLICATION_FACTOR);

  /** At most this many initial nodes; at least the replication factor (a rule, not a bound). */
  public static final int MAX_INITIAL_NODES = 10_000;

  public static final Whole VNODES = new Whole(1, 4096);

  /** 0 picks a quarter of the CPUs. */
  public static final Whole CORE_THREADS = new Whole(0, ShardRouting.MAX_SHARDS);

  public static final Whole TRANSPORT_THREADS = new Whole(0, 1024);

  /** Below 10%: a drift that large is a broken clock, and leases would shrink to nothing. */
  public static final Whole CLOCK_DRIFT_PPM = new Whole(0, 99_999);

  public static final Whole CLOCK_CACHE_BYTES = new Whole(0, Long.MAX_VALUE);

  public static final Span BOUNDED_DELAY = new Span(ONE_MS, MAX_TIMING);
  public static final Span CLOCK_SKEW_BOUND = new Span(Duration.ZERO, MAX_TIMING);
  public static final Span HEDGE = new Span(ONE_MS, MAX_TIMING);
  public static final Span ROUND_TIMEOUT = new Span(ONE_MS, MAX_TIMING);
  public static final Span BACKOFF_MAX = new Span(ONE_MS, MAX_TIMING);

  /** Timers fire on ticks; the tick must also not exceed the hedge (a rule between settings). */
  public static final Span TICK_INTERVAL = new Span(ONE_MS, MAX_TIMING);

  /** Renewals run every lease / 4, which must be at least a millisecond. */
  public static final Span LEASE = new Span(Duration.ofMillis(4), MAX_TIMING);

  public static final Span DRAIN_TIMEOUT = new Span(Duration.ZERO, MAX_TIMING);
  public static final Span ZOOKEEPER_SESSION_TIMEOUT = new Span(ONE_MS, MAX_TIMING);

  /**
   * The transport's connect timeout and reconnect back-off, in the file; through the builder,
   * {@code TransportConfig} checks its own (in milliseconds).
   */
  public static final Span TRANSPORT_TIMING = new Span(ONE_MS, MAX_TIMING);

  private SettingBounds() {}
}
