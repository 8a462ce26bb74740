package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.server.metrics.MetricsEndpoint;
import io.frsm.server.metrics.Scrape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every meter a running node registers reaches its Prometheus scrape: none is refused for a name
 * another meter already took (a counter {@code frsm.lsm.writes.held.total} once lost to the gauge
 * {@code frsm.lsm.writes.held} that way, invisible to every operator). Three nodes, each with the
 * registry of a metrics endpoint of its own as {@code frsm server} gives it, through writes, reads,
 * deletes and a crash and restart, so the meters registered on first use are there too.
 */
class NodeMetersExportIT {

  @Test
  void everyMeterOfARunningNode_isScraped_noneRefused(@TempDir Path dir) throws Exception {
    List<MetricsEndpoint> endpoints = new CopyOnWriteArrayList<>();
    try (TestCluster cluster =
        TestCluster.withTweaks(
            dir,
            builder -> {
              MetricsEndpoint endpoint = startEndpoint();
              endpoints.add(endpoint);
              builder.meterRegistry(endpoint.registry());
            })) {
      FrsmClient client = cluster.thinClient();
      for (int k = 0; k < 20; k++) {
        byte[] key = ("meters-" + k).getBytes(UTF_8);
        Version created = client.create(key, "v0".getBytes(UTF_8));
        client.cas(key, created, "v1".getBytes(UTF_8));
        assertTrue(client.get(key).isPresent());
        if (k % 4 == 0) {
          client.delete(key, client.get(key).orElseThrow().version());
        }
      }
      cluster.crash(2);
      cluster.restart(2);
      cluster.awaitNaturalLeaders();
      assertEquals(4, endpoints.size(), "three nodes and the restart, each with its endpoint");
      for (MetricsEndpoint endpoint : endpoints) {
        assertEquals(List.of(), endpoint.registrationFailures());
      }
      // The endpoints of the running nodes (the crashed node's first one stays as it was left).
      for (MetricsEndpoint endpoint : endpoints.subList(1, endpoints.size())) {
        assertEquals(List.of(), Scrape.metersMissing(endpoint));
      }
    } finally {
      endpoints.forEach(MetricsEndpoint::close);
    }
  }

  private static MetricsEndpoint startEndpoint() {
    try {
      return MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
