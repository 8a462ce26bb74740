package io.frsm.server.stream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Range streaming's meters (docs/OPERATIONS.md "Metrics and health", table "Streaming"), removed
 * again on {@link #close()} like the node's. Thread-safe.
 */
final class StreamMetrics implements AutoCloseable {
  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  final Counter bytesSent;
  final Counter bytesReceived;
  final Counter filesReceived;
  final Counter chunkRetries;
  final Counter copiesCompleted;
  final Counter copiesFailed;
  final Counter handOffBytes;
  final AtomicInteger sourceSessions = new AtomicInteger();
  final AtomicInteger receiveSessions = new AtomicInteger();
  final DistributionSummary throughput;

  StreamMetrics(MeterRegistry registry) {
    this.registry = registry;
    bytesSent = add(counter("frsm.stream.bytes.sent", "chunk bytes this node sent as a source"));
    bytesReceived =
        add(counter("frsm.stream.bytes.received", "chunk bytes this node received and verified"));
    filesReceived =
        add(counter("frsm.stream.files.received", "files received whole and checksum-verified"));
    chunkRetries =
        add(counter("frsm.stream.chunk.retries", "chunks asked again after failing verification"));
    copiesCompleted = add(counter("frsm.stream.copies.completed", "range copies imported"));
    copiesFailed = add(counter("frsm.stream.copies.failed", "range copies failed or cancelled"));
    handOffBytes =
        add(
            counter(
                "frsm.handoff.bytes", "entry bytes of hand-off shipment chunks this node sent"));
    add(
        Gauge.builder("frsm.stream.sessions.active", sourceSessions, AtomicInteger::get)
            .tag("side", "source")
            .description("stream sessions open on this node")
            .register(registry));
    add(
        Gauge.builder("frsm.stream.sessions.active", receiveSessions, AtomicInteger::get)
            .tag("side", "receiver")
            .description("stream sessions open on this node")
            .register(registry));
    throughput =
        add(
            DistributionSummary.builder("frsm.stream.copy.throughput")
                .baseUnit("bytes_per_second")
                .description("bytes received per second of each completed copy, start to import")
                .register(registry));
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  private <T extends Meter> T add(T meter) {
    meters.add(meter);
    return meter;
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
  }
}
