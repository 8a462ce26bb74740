package io.frsm.server.node;

import io.frsm.server.zk.HandBackCounts;
import io.frsm.server.zk.RangeLeadership;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The hand-off meters (docs/OPERATIONS.md "Metrics", docs/PROTOCOL.md "Hand-off instead of a
 * scan"): what the node did as a stand-in handing a range back (begun, shipped, keys and bytes,
 * acknowledged, given up; its bytes are a stream meter) and as the returning node (entered
 * leader-only mode by an import or by a scan, shipments refused). All read at scrape time; zero
 * until the cluster formed.
 */
final class HandOffMeters {
  private HandOffMeters() {}

  static List<Meter> register(
      MeterRegistry registry, Supplier<RangeLeadership> leadership, Supplier<CoreShards> cores) {
    List<Meter> meters = new ArrayList<>();
    ToDoubleFunction<ToDoubleFunction<HandBackCounts>> agent =
        f -> {
          RangeLeadership l = leadership.get();
          return l == null ? 0 : f.applyAsDouble(l.handBacks());
        };
    ToDoubleFunction<ToDoubleFunction<HandOffTally>> core =
        f -> {
          CoreShards c = cores.get();
          return c == null ? 0 : f.applyAsDouble(c.handOffTally());
        };
    meters.add(
        counter("frsm.handoff.begun", "hand-overs on purpose that drained to ship", null)
            .register(registry, agent, HandBackCounts::begun));
    meters.add(
        counter("frsm.handoff.shipped", "drains whose shipment went out", null)
            .register(registry, agent, HandBackCounts::shipped));
    meters.add(
        counter("frsm.handoff.keys", "keys in the shipments that went out", null)
            .register(registry, agent, HandBackCounts::keysShipped));
    meters.add(
        counter("frsm.handoff.acknowledged", "shipments the successor took", null)
            .register(registry, agent, HandBackCounts::acknowledged));
    meters.add(
        counter(
                "frsm.handoff.fallbacks",
                "hand-offs after which the successor scans",
                "no_shipment")
            .register(registry, agent, HandBackCounts::withoutShipment));
    meters.add(
        counter(
                "frsm.handoff.fallbacks",
                "hand-offs after which the successor scans",
                "not_acknowledged")
            .register(registry, agent, HandBackCounts::notAcknowledged));
    meters.add(
        counter("frsm.handoff.fallbacks", "hand-offs after which the successor scans", "declined")
            .register(registry, agent, HandBackCounts::declined));
    meters.add(
        counter("frsm.handoff.fallbacks", "hand-offs after which the successor scans", "budget")
            .register(registry, agent, HandBackCounts::declinedBudget));
    meters.add(
        counter("frsm.handoff.fallbacks", "hand-offs after which the successor scans", "absence")
            .register(registry, agent, HandBackCounts::declinedAbsence));
    meters.add(
        FunctionTimer.builder(
                "frsm.handoff.drain",
                agent,
                a -> (long) a.applyAsDouble(HandBackCounts::shipped),
                a -> a.applyAsDouble(HandBackCounts::drainNanos),
                TimeUnit.NANOSECONDS)
            .description("drains that shipped, from Input.HandOff to the shipment")
            .register(registry));
    meters.add(
        counter(
                "frsm.handoff.fallbacks",
                "hand-offs after which the successor scans",
                "import_refused")
            .register(registry, core, HandOffTally::importsRefused));
    ToDoubleFunction<ToDoubleFunction<RangeLeadership>> stop =
        f -> {
          RangeLeadership l = leadership.get();
          return l == null ? 0 : f.applyAsDouble(l);
        };
    for (String outcome : new String[] {"handed_off", "released"}) {
      ToDoubleFunction<RangeLeadership> count =
          outcome.equals("handed_off")
              ? RangeLeadership::stopRangesHandedOff
              : RangeLeadership::stopRangesReleased;
      meters.add(
          counter(
                  "frsm.shutdown.ranges",
                  "ranges a graceful stop held, by how it gave them up",
                  null,
                  "outcome",
                  outcome)
              .register(registry, stop, count));
    }
    ToDoubleFunction<ToDoubleFunction<CoreShards>> shards =
        f -> {
          CoreShards c = cores.get();
          return c == null ? 0 : f.applyAsDouble(c);
        };
    meters.add(
        counter(
                "frsm.handoff.fallbacks",
                "hand-offs after which the successor scans",
                "base_untrusted")
            .register(registry, shards, CoreShards::handOffBasesUntrusted));
    meters.add(
        counter(
                "frsm.range.leader_only_entries",
                "ranges this node put in leader-only mode",
                null,
                "by",
                "import")
            .register(registry, core, HandOffTally::enteredByImport));
    meters.add(
        counter(
                "frsm.range.leader_only_entries",
                "ranges this node put in leader-only mode",
                null,
                "by",
                "scan")
            .register(registry, core, HandOffTally::scansCompleted));
    return meters;
  }

  private static Named counter(String name, String description, String reason, String... tags) {
    return new Named(name, description, reason, tags);
  }

  /** A counter to register over one of two sources. */
  private record Named(String name, String description, String reason, String[] tags) {
    <T> Meter register(
        MeterRegistry registry,
        ToDoubleFunction<ToDoubleFunction<T>> source,
        ToDoubleFunction<T> field) {
      FunctionCounter.Builder<ToDoubleFunction<ToDoubleFunction<T>>> b =
          FunctionCounter.builder(name, source, s -> s.applyAsDouble(field))
              .description(description);
      if (reason != null) {
        b.tag("reason", reason);
      }
      if (tags.length > 0) {
        b.tags(tags);
      }
      return b.register(registry);
    }
  }
}
