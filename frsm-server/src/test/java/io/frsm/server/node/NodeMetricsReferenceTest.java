package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.SessionCounters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * A function counter holds what it reads weakly: the node's meters must hold it strongly, or the
 * counter reads NaN after the next collection (the peer frames the transport refused once did,
 * found by WireFieldPropertyIT's statistics).
 */
class NodeMetricsReferenceTest {
  @Test
  void theRefusedPeerFramesCounter_outlivesAGarbageCollection() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    long[] refused = {7};
    LongSupplier supplier = () -> refused[0]; // captures: a new object only the meters hold
    WeakReference<LongSupplier> weak = new WeakReference<>(supplier);
    NodeMetrics metrics =
        new NodeMetrics(registry, () -> null, () -> null, new SessionCounters(), supplier);
    supplier = null;
    for (int i = 0; i < 5 && weak.get() != null; i++) {
      System.gc(); // only to give an unheld supplier the chance to go; a held one stays anyway
    }
    assertEquals(
        7.0,
        registry
            .get("frsm.peer.messages.refused")
            .tag("stage", "decode")
            .functionCounter()
            .count());
    metrics.close();
  }
}
