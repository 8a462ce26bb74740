package io.frsm.server.zk;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The deadline of one wait of a membership change (installations, copies, settles:
 * docs/OPERATIONS.md "Membership changes", {@code node.membershipStepTimeout}): it expires only
 * after {@code quiet} passed <em>without progress</em>. Each time the wait sees progress (a range
 * settled, a node installed, a copy done) it calls {@link #progressed} and the timeout starts over,
 * so a large change whose settles keep finishing ranges is never timed out, while one that stalls
 * (a holder that does not answer, an incoming node that is down) still is, and is tried again.
 *
 * <p>Not thread-safe: one orchestrator thread uses it. The clock is injected for tests.
 */
public final class StepDeadline {
  private final Duration quiet;
  private final LongSupplier nanoClock;
  private long lastProgressNanos;

  /** A deadline {@code quiet} from now on {@link System#nanoTime}. */
  public StepDeadline(Duration quiet) {
    this(quiet, System::nanoTime);
  }

  /**
   * @throws IllegalArgumentException if {@code quiet} is not positive
   */
  public StepDeadline(Duration quiet, LongSupplier nanoClock) {
    if (quiet.isNegative() || quiet.isZero()) {
      throw new IllegalArgumentException("a step timeout must be positive: " + quiet);
    }
    this.quiet = quiet;
    this.nanoClock = nanoClock;
    this.lastProgressNanos = nanoClock.getAsLong();
  }

  /** The wait made progress: the timeout starts over from now. */
  public void progressed() {
    lastProgressNanos = nanoClock.getAsLong();
  }

  /** Nanoseconds left before the wait times out; zero or less once it has. */
  public long remainingNanos() {
    return quiet.toNanos() - (nanoClock.getAsLong() - lastProgressNanos);
  }

  public boolean expired() {
    return remainingNanos() <= 0;
  }

  /** For messages: "{@code PT2M} without progress". */
  @Override
  public String toString() {
    return quiet + " without progress";
  }
}
