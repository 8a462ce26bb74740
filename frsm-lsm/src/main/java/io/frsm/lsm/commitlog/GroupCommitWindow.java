package io.frsm.lsm.commitlog;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How long a stripe's writer waits for more records before a group commit that already holds two or
 * more (see {@link CommitLogConfig#groupCommitWindow()}): never ({@link #OFF}), a fixed time, or
 * ({@link #AUTO}, the default) in proportion to what the stripe's own syncs take.
 *
 * <p>Why proportional: the window trades a write's latency for fewer syncs per record, and what a
 * sync costs is what decides whether that pays. On a device whose syncs take 20 µs, a fixed 1 ms
 * window would make a write fifty times slower to save a little CPU; on a virtual disk whose syncs
 * take a few hundred microseconds of time and CPU each, the same millisecond halved the syncs and
 * cut the CPU per operation by a quarter (docs/BENCHMARKS.md). {@link #AUTO} waits {@value
 * #AUTO_SYNCS} times the stripe's recent sync time, at most {@link #AUTO_LIMIT}: a window never
 * adds more than two syncs' worth of latency, whatever the device.
 *
 * @param limit the longest window; zero = off
 * @param adaptive whether the window follows the stripe's sync time (up to {@code limit}) instead
 *     of always lasting {@code limit}
 */
public record GroupCommitWindow(Duration limit, boolean adaptive) {
  /** A window never lasts longer than this: a bound that catches a unit mistake (s for ms). */
  public static final Duration MAX = Duration.ofMillis(100);

  /** {@link #AUTO} waits this many of the stripe's recent sync times. */
  public static final int AUTO_SYNCS = 2;

  /** The longest window {@link #AUTO} opens. */
  public static final Duration AUTO_LIMIT = Duration.ofMillis(1);

  /** Never wait: a sync starts as soon as the writer finds records queued. */
  public static final GroupCommitWindow OFF = new GroupCommitWindow(Duration.ZERO, false);

  /** The default: {@value #AUTO_SYNCS}× the stripe's recent sync time, at most 1 ms. */
  public static final GroupCommitWindow AUTO = new GroupCommitWindow(AUTO_LIMIT, true);

  /** The spelling of {@link #AUTO} in configuration files. */
  public static final String AUTO_NAME = "auto";

  public GroupCommitWindow {
    Objects.requireNonNull(limit, "limit");
    if (limit.isNegative() || limit.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          "groupCommitWindow must be in [0, " + MAX.toMillis() + " ms], was " + limit);
    }
    if (adaptive && limit.isZero()) {
      throw new IllegalArgumentException("an adaptive groupCommitWindow needs a limit above 0");
    }
  }

  /** Always {@code window} (zero = off). */
  public static GroupCommitWindow fixed(Duration window) {
    Objects.requireNonNull(window, "groupCommitWindow");
    return window.isZero() ? OFF : new GroupCommitWindow(window, false);
  }

  public boolean isOff() {
    return limit.isZero();
  }

  /**
   * The window to wait now, in nanoseconds, given the stripe's recent sync time ({@code -1} when
   * none was measured yet: an adaptive window then waits nothing).
   */
  long nanos(long recentSyncNanos) {
    long limitNanos = limit.toNanos();
    if (!adaptive) {
      return limitNanos;
    }
    if (recentSyncNanos < 0) {
      return 0;
    }
    return Math.min(limitNanos, AUTO_SYNCS * recentSyncNanos);
  }

  /** {@code auto}, {@code off}, or the fixed window, e.g. {@code 1ms} or {@code 500us}. */
  @Override
  public String toString() {
    if (equals(AUTO)) {
      return AUTO_NAME;
    }
    if (isOff()) {
      return "off";
    }
    String size =
        limit.toNanos() % 1_000_000 == 0
            ? limit.toMillis() + "ms"
            : String.format(Locale.ROOT, "%dus", limit.toNanos() / 1_000);
    return adaptive ? "adaptive up to " + size : size;
  }
}
