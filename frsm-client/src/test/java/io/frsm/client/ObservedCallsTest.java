package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.api.ClientObserver;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.micrometer.MicrometerObserver;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * How calls are reported to a service's {@link ClientObserver}: the names its javadoc promises, a
 * throwing observer never failing a call, and the Micrometer adapter's meters in the registry the
 * service passed (and no other).
 */
class ObservedCallsTest {
  private static final KeyBytes K = KeyBytes.wrap(new byte[] {1});
  private static final Version V = new Version(1, 0);

  @Test
  void outcomes_haveTheDocumentedNames() {
    assertEquals("ok", ObservedCalls.outcome(new ClientOutcome.Written(V), null));
    assertEquals("ok", ObservedCalls.outcome(new ClientOutcome.ReadResult(Optional.empty()), null));
    assertEquals(
        "mismatch", ObservedCalls.outcome(new ClientOutcome.Mismatch(V, Optional.empty()), null));
    assertEquals(
        "exists",
        ObservedCalls.outcome(new ClientOutcome.Exists(new Versioned(new byte[0], V)), null));
    assertEquals("unknown", ObservedCalls.outcome(new ClientOutcome.Unknown("t"), null));
    assertEquals("not_executed", ObservedCalls.outcome(new ClientOutcome.NotExecuted("d"), null));
    assertEquals(
        "unknown",
        ObservedCalls.outcome(null, new CompletionException(new OutcomeUnknownException("t"))));
    assertEquals("not_executed", ObservedCalls.outcome(null, new NotExecutedException("d")));
    assertEquals("invalid", ObservedCalls.outcome(null, new InvalidRequestException("k")));
    assertEquals("error", ObservedCalls.outcome(null, new IllegalStateException("x")));
    assertEquals("get", ObservedCalls.name(new ClientOperation.Get(K, true)));
    assertEquals("cas", ObservedCalls.name(new ClientOperation.Cas(K, V, new byte[0])));
    assertEquals("fence", ObservedCalls.name(new ClientOperation.Fence(K)));
  }

  @Test
  void aThrowingObserver_neverFailsTheCall() {
    List<String> heard = new CopyOnWriteArrayList<>();
    ObservedCalls observed =
        new ObservedCalls(
            new ClientObserver() {
              @Override
              public void operationEnded(String operation, String outcome, long nanos) {
                heard.add(operation + " " + outcome);
                throw new IllegalStateException("the service's metrics broke");
              }
            });
    CompletableFuture<ClientOutcome> call = new CompletableFuture<>();
    CompletableFuture<ClientOutcome> returned =
        observed.observe(new ClientOperation.Delete(K, V), System.nanoTime(), call);
    call.complete(new ClientOutcome.Deleted(V.next()));
    assertEquals(new ClientOutcome.Deleted(V.next()), returned.join());
    assertEquals(List.of("delete ok"), heard);
  }

  @Test
  void micrometer_recordsInThePassedRegistryOnly() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ObservedCalls observed = new ObservedCalls(new MicrometerObserver(registry));
    CompletableFuture<ClientOutcome> call = new CompletableFuture<>();
    observed.observe(new ClientOperation.Create(K, new byte[0]), System.nanoTime(), call);
    call.complete(new ClientOutcome.Exists(new Versioned(new byte[0], V)));
    observed.refused("cas", System.nanoTime());
    observed.topologyChanged(3);
    assertEquals(
        1,
        registry
            .get("frsm.client.operations")
            .tag("operation", "create")
            .tag("outcome", "exists")
            .timer()
            .count());
    assertEquals(
        1,
        registry
            .get("frsm.client.operations")
            .tag("operation", "cas")
            .tag("outcome", "invalid")
            .timer()
            .count());
    assertEquals(1, registry.get("frsm.client.topology.changes").counter().count());
    assertEquals(3, registry.get("frsm.client.nodes.live").gauge().value());
    assertEquals(
        0,
        io.micrometer.core.instrument.Metrics.globalRegistry.getMeters().size(),
        "nothing global");
  }
}
