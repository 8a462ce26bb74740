package io.frsm.server.node;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The counts of every {@code frsm.*} meter of some nodes at one moment, so a benchmark can print
 * what each node did in a window ({@link #countsSince}): operations by path (leader-only or quorum
 * reads, warm or cold rounds, not executed, forwarded, redirected, rerouted), settles, renewals.
 * Counters and timers give their count, timers also their total time (where the time went: a count
 * alone cannot tell a thousand short waits from a few long ones), gauges their value at the
 * window's end.
 */
final class MeterSnapshot {
  private final Map<String, Double> counts = new TreeMap<>();
  private final Map<String, Double> gauges = new TreeMap<>();

  /** Timers' total time in milliseconds, by the same names as {@link #counts}. */
  private final Map<String, Double> totalMillis = new TreeMap<>();

  /** Reads {@code registries[i]} as node {@code i + 1}'s; a null registry is skipped. */
  static MeterSnapshot of(MeterRegistry... registries) {
    MeterSnapshot s = new MeterSnapshot();
    for (int i = 0; i < registries.length; i++) {
      if (registries[i] == null) {
        continue;
      }
      for (Meter meter : registries[i].getMeters()) {
        Meter.Id id = meter.getId();
        if (!id.getName().startsWith("frsm.")) {
          continue;
        }
        String name = "n" + (i + 1) + " " + id.getName() + tags(id);
        if (meter instanceof Timer timer) {
          s.totalMillis.merge(name, timer.totalTime(TimeUnit.MILLISECONDS), Double::sum);
        } else if (meter instanceof FunctionTimer timer) {
          s.totalMillis.merge(name, timer.totalTime(TimeUnit.MILLISECONDS), Double::sum);
        }
        for (Measurement m : meter.measure()) {
          if (m.getStatistic() == Statistic.COUNT) {
            s.counts.merge(name, m.getValue(), Double::sum);
          } else if (m.getStatistic() == Statistic.VALUE && id.getType() == Meter.Type.GAUGE) {
            s.gauges.put(name, m.getValue());
          }
        }
      }
    }
    return s;
  }

  private static String tags(Meter.Id id) {
    if (id.getTags().isEmpty()) {
      return "";
    }
    return id.getTags().stream().map(Tag::getValue).collect(Collectors.joining(",", "{", "}"));
  }

  /**
   * One line per meter whose count changed since {@code earlier} (the change, and per second over
   * {@code seconds}; for a timer also the change of its total time, and that time per second of the
   * window: 1.0 is one thread busy waiting on it the whole window), then the gauges that are not
   * zero now; {@code prefix} starts every line.
   */
  String countsSince(MeterSnapshot earlier, double seconds, String prefix) {
    StringBuilder out = new StringBuilder();
    counts.forEach(
        (name, now) -> {
          double delta = now - earlier.counts.getOrDefault(name, 0.0);
          if (delta == 0) {
            return;
          }
          out.append(String.format("%s %s +%.0f (%.1f/s)", prefix, name, delta, delta / seconds));
          Double total = totalMillis.get(name);
          if (total != null) {
            double ms = total - earlier.totalMillis.getOrDefault(name, 0.0);
            out.append(
                String.format(
                    " time +%.0f ms (%.3f ms each, %.2f s/s)", ms, ms / delta, ms / 1e3 / seconds));
          }
          out.append(String.format("%n"));
        });
    gauges.forEach(
        (name, now) -> {
          if (now != 0 && !Double.isNaN(now)) {
            out.append(String.format("%s %s = %.0f%n", prefix, name, now));
          }
        });
    return out.toString();
  }
}
