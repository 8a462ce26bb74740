package io.frsm.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.transport.TopologySnapshot;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fence after a create with an unknown outcome waits the cluster's {@code T + 2ε} once a view
 * carried it, and the nodes' defaults (5 s + 2 × 250 ms) before: with no view yet, or a view from a
 * node that does not know it (0). Replaces the thin client's check of a shape without timing.
 */
class SeedClientSettleTest {
  @Test
  void settle_isTheDefaultUntilAViewCarriesTheClusters() {
    long defaults = Duration.ofMillis(5_500).toNanos();
    assertEquals(defaults, SeedClient.createSettleNanos(null), "no view yet");
    TopologySnapshot unknown = new TopologySnapshot(0, 1, List.of(), List.of(), 0);
    assertEquals(defaults, SeedClient.createSettleNanos(unknown), "a view without it");
    TopologySnapshot carried = new TopologySnapshot(0, 2, List.of(), List.of(), 9_000_000);
    assertEquals(Duration.ofSeconds(9).toNanos(), SeedClient.createSettleNanos(carried));
  }
}
