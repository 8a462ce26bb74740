package io.frsm.client.micrometer;

import io.frsm.api.ClientObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ClientObserver} that records a client's calls and topology in the service's own
 * Micrometer {@link MeterRegistry} (frsm registers nothing globally):
 *
 * <ul>
 *   <li>{@code frsm.client.operations} (timer; tags {@code operation} = get, create, cas, delete,
 *       fence and {@code outcome} = ok, mismatch, exists, unknown, not_executed, invalid, error):
 *       every call, from the call to its end;
 *   <li>{@code frsm.client.topology.changes} (counter): views of the cluster the client heard;
 *   <li>{@code frsm.client.nodes.live} (gauge): the members the last view showed live.
 * </ul>
 *
 * Needs {@code io.micrometer:micrometer-core} on the service's class path (frsm-client does not
 * bring it). Thread-safe.
 *
 * <pre>{@code
 * FrsmClient client = FrsmClient.builder().seeds("node1:7500").clusterId("prod")
 *     .observer(new MicrometerObserver(registry)).build();
 * }</pre>
 */
public final class MicrometerObserver implements ClientObserver {
  private final MeterRegistry registry;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Counter topologyChanges;
  private final AtomicInteger liveNodes = new AtomicInteger();

  public MicrometerObserver(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.topologyChanges =
        Counter.builder("frsm.client.topology.changes")
            .description("views of the cluster the client heard from its nodes")
            .register(registry);
    registry.gauge("frsm.client.nodes.live", liveNodes);
  }

  @Override
  public void operationEnded(String operation, String outcome, long nanos) {
    timers
        .computeIfAbsent(
            operation + '/' + outcome,
            k ->
                Timer.builder("frsm.client.operations")
                    .description("frsm client calls, from the call to its end")
                    .tag("operation", operation)
                    .tag("outcome", outcome)
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void topologyChanged(int live) {
    topologyChanges.increment();
    liveNodes.set(live);
  }
}
