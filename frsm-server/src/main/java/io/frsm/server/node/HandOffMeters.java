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

  /**
   * @param leadership the node's leadership, null before it serves; kept by the caller for as long
   *     as the meters are registered (each meter holds it only weakly)
   * @param cores the node's cores, likewise
   */
  static List<Meter> register(
      MeterRegistry registry, Supplier<RangeLeadership> leadership, Supplier<CoreShards> cores) {
    List<Meter> meters = new ArrayList<>();
    meters.add(
        counter("frsm.handoff.begun", "hand-overs on purpose that drained to ship", null)
            .register(registry, leadership, handBacks(HandBackCounts::begun)));
    meters.add(
        counter("frsm.handoff.shipped", "drains whose shipment went out", null)
            .register(registry, leadership, handBacks(HandBackCounts::shipped)));
    meters.add(
        counter("frsm.handoff.keys", "keys in the shipments that went out", null)
            .register(registry, leadership, handBacks(HandBackCounts::keysShipped)));
    meters.add(
        counter(
                "frsm.handoff.settled",
                "written keys the drains settled before shipping (the rest shipped as they were)",
                null)
            .register(registry, leadership, handBacks(HandBackCounts::keysSettled)));
    meters.add(
        counter("frsm.handoff.acknowledged", "shipments the successor took", null)
            .register(registry, leadership, handBacks(HandBackCounts::acknowledged)));
    meters.add(
        fallback("no_shipment")
            .register(registry, leadership, handBacks(HandBackCounts::withoutShipment)));
    meters.add(
        fallback("not_acknowledged")
            .register(registry, leadership, handBacks(HandBackCounts::notAcknowledged)));
    meters.add(
        fallback("declined").register(registry, leadership, handBacks(HandBackCounts::declined)));
    meters.add(
        fallback("budget")
            .register(registry, leadership, handBacks(HandBackCounts::declinedBudget)));
    meters.add(
        fallback("absence")
            .register(registry, leadership, handBacks(HandBackCounts::declinedAbsence)));
    meters.add(
        FunctionTimer.builder(
                "frsm.handoff.drain",
                leadership,
                l -> (long) read(l, handBacks(HandBackCounts::shipped)),
                l -> read(l, handBacks(HandBackCounts::drainNanos)),
                TimeUnit.NANOSECONDS)
            .description("drains that shipped, from Input.HandOff to the shipment")
            .register(registry));
    meters.add(
        fallback("import_refused").register(registry, cores, tally(HandOffTally::importsRefused)));
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
              .register(registry, leadership, count));
    }
    meters.add(
        fallback("base_untrusted").register(registry, cores, CoreShards::handOffBasesUntrusted));
    meters.add(
        leaderOnlyEntries("import")
            .register(registry, cores, tally(HandOffTally::enteredByImport)));
    meters.add(
        leaderOnlyEntries("scan").register(registry, cores, tally(HandOffTally::scansCompleted)));
    return meters;
  }

  /** A figure of the node's hand-backs as a stand-in. */
  private static ToDoubleFunction<RangeLeadership> handBacks(ToDoubleFunction<HandBackCounts> f) {
    return l -> f.applyAsDouble(l.handBacks());
  }

  /** A figure of the cores' hand-off tally as the returning node. */
  private static ToDoubleFunction<CoreShards> tally(ToDoubleFunction<HandOffTally> f) {
    return c -> f.applyAsDouble(c.handOffTally());
  }

  /** {@code field} of what {@code source} yields now; zero while it yields nothing. */
  private static <T> double read(Supplier<T> source, ToDoubleFunction<T> field) {
    T t = source.get();
    return t == null ? 0 : field.applyAsDouble(t);
  }

  /** A hand-off after which the successor scans, for {@code reason}. */
  private static Named fallback(String reason) {
    return counter("frsm.handoff.fallbacks", "hand-offs after which the successor scans", reason);
  }

  /** A range this node put in leader-only mode, {@code by} an import or a scan. */
  private static Named leaderOnlyEntries(String by) {
    return counter(
        "frsm.range.leader_only_entries",
        "ranges this node put in leader-only mode",
        null,
        "by",
        by);
  }

  private static Named counter(String name, String description, String reason, String... tags) {
    return new Named(name, description, reason, tags);
  }

  /** A counter to register over one of two sources. */
  private record Named(String name, String description, String reason, String[] tags) {
    /**
     * Registers the counter over {@code source} itself: a function meter holds its object only
     * weakly, so it must be an object the node keeps (the supplier NodeMetrics holds), never one
     * made here, or the meter freezes at its last value once the collector clears it.
     */
    <T> Meter register(MeterRegistry registry, Supplier<T> source, ToDoubleFunction<T> field) {
      FunctionCounter.Builder<Supplier<T>> b =
          FunctionCounter.builder(name, source, s -> read(s, field)).description(description);
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
