package io.frsm.lsm.commitlog;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;

/**
 * The meters of one commit-log stripe, tagged with its index; registered together, removed together
 * when the stripe shuts down (so a reopened log registers fresh ones).
 */
final class StripeMeters {
  final Timer syncLatency;
  final DistributionSummary batchRecords;
  final Counter bytesWritten;
  final Counter failedBatches;
  final Timer windowTime;
  final DistributionSummary gatheredRecords;
  private final List<Meter> meters = new ArrayList<>();
  private final MeterRegistry registry;
  private final String index;

  StripeMeters(MeterRegistry registry, int stripeIndex) {
    this.registry = registry;
    this.index = Integer.toString(stripeIndex);
    this.syncLatency =
        register(
            Timer.builder("frsm.commitlog.sync.latency")
                .description("Time of one group commit's sync")
                .tag("stripe", index)
                .register(registry));
    this.batchRecords =
        register(
            DistributionSummary.builder("frsm.commitlog.batch.records")
                .description("Records made durable by one sync")
                .tag("stripe", index)
                .register(registry));
    this.bytesWritten =
        register(
            Counter.builder("frsm.commitlog.bytes.written")
                .baseUnit("bytes")
                .tag("stripe", index)
                .register(registry));
    this.failedBatches =
        register(
            Counter.builder("frsm.commitlog.batches.failed")
                .description("Group commits whose write or sync failed")
                .tag("stripe", index)
                .register(registry));
    this.windowTime =
        register(
            Timer.builder("frsm.commitlog.group.window")
                .description("How long group commits waited out the window for more records")
                .tag("stripe", index)
                .register(registry));
    this.gatheredRecords =
        register(
            DistributionSummary.builder("frsm.commitlog.group.window.records")
                .description("Records that joined a group commit while it waited out its window")
                .tag("stripe", index)
                .register(registry));
  }

  /** Registers the size gauge, once {@code stripe} knows its segments. */
  void gaugeSize(CommitLogStripe stripe) {
    register(
        Gauge.builder("frsm.commitlog.size.bytes", stripe, CommitLogStripe::totalSizeBytes)
            .description("Bytes of all live segments of the stripe")
            .baseUnit("bytes")
            .tag("stripe", index)
            .register(registry));
  }

  private <M extends Meter> M register(M meter) {
    meters.add(meter);
    return meter;
  }

  /** Removes every meter of the stripe from the registry. */
  void remove() {
    meters.forEach(registry::remove);
  }
}
