package io.frsm.server.zk;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The cluster's bounded delay {@code T} and wall-clock skew bound ε (docs/DESIGN.md "Operations"),
 * published in its {@link ClusterShape} when it forms. Every node runs with these values (a node
 * configured otherwise is refused), and every client needs them: a create whose outcome is unknown
 * is settled only {@code T + 2ε} after its invocation, so a fence that resolves it must wait that
 * long — with the cluster's real values, not the defaults.
 *
 * <p>Both are kept to whole microseconds, the unit they are stored in, so a value survives the
 * round trip through ZooKeeper exactly and two equal configurations compare equal.
 *
 * @param boundedDelay {@code T}: no round for an operation starts later than {@code T} after its
 *     invocation; positive
 * @param clockSkewBound ε: the bound on the skew between the nodes' wall clocks; zero or positive
 */
public record ClusterTiming(Duration boundedDelay, Duration clockSkewBound) {
  /** The nodes' defaults ({@code FrsmNodeBuilder}): T = 5 s, ε = 250 ms. */
  public static final ClusterTiming DEFAULTS =
      new ClusterTiming(Duration.ofSeconds(5), Duration.ofMillis(250));

  public ClusterTiming {
    Objects.requireNonNull(boundedDelay, "boundedDelay");
    Objects.requireNonNull(clockSkewBound, "clockSkewBound");
    boundedDelay = boundedDelay.truncatedTo(ChronoUnit.MICROS);
    clockSkewBound = clockSkewBound.truncatedTo(ChronoUnit.MICROS);
    if (boundedDelay.isNegative() || boundedDelay.isZero()) {
      throw new IllegalArgumentException(
          "bounded delay T must be at least 1 µs, was " + boundedDelay);
    }
    if (clockSkewBound.isNegative()) {
      throw new IllegalArgumentException("clock skew bound must be >= 0, was " + clockSkewBound);
    }
  }

  /** {@code T + 2ε}: how long after its invocation an unknown create may still take effect. */
  public Duration createSettle() {
    return boundedDelay.plus(clockSkewBound.multipliedBy(2));
  }

  @Override
  public String toString() {
    return "T = " + readable(boundedDelay) + ", ε = " + readable(clockSkewBound);
  }

  private static String readable(Duration d) {
    long micros = d.toNanos() / 1_000;
    return micros % 1_000 == 0 ? micros / 1_000 + " ms" : micros + " µs";
  }
}
