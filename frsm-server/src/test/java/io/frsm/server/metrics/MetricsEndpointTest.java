package io.frsm.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsEndpointTest {

  @Test
  void scrape_exposesTheStorageEnginesMeters_inPrometheusFormat(@TempDir Path dir)
      throws Exception {
    try (MetricsEndpoint endpoint =
            MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        LsmEngine engine =
            LsmEngine.open(
                LsmConfig.builder(dir).build(), NioFileSystem.INSTANCE, endpoint.registry())) {
      engine.write(Cell.promise(Key.of(new byte[] {1}), new Ballot(1, 1, 1), 0)).join();
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      URI base = URI.create("http://127.0.0.1:" + endpoint.address().getPort());
      HttpResponse<String> metrics =
          http.send(
              HttpRequest.newBuilder(base.resolve("/metrics"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, metrics.statusCode());
      assertTrue(
          metrics.body().contains("frsm_commitlog_sync_latency_seconds_count"), metrics.body());
      assertTrue(metrics.body().contains("frsm_lsm_memtable_bytes"));
      assertTrue(metrics.body().contains("jvm_memory_used_bytes"));
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(base.resolve("/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
      endpoint.healthy(false);
      assertEquals(
          503,
          http.send(
                  HttpRequest.newBuilder(base.resolve("/health")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .statusCode());
    }
  }

  @Test
  void health_isOk_onlyWhileTheServingCheckHolds_andTheEndpointIsNotDraining() throws Exception {
    try (MetricsEndpoint endpoint =
        MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      AtomicBoolean serving = new AtomicBoolean(false);
      endpoint.servingCheck(serving::get);
      assertEquals(503, Scrape.health(endpoint.address()));
      assertEquals("unavailable\n", Scrape.get(endpoint.address(), "/health").body());
      serving.set(true);
      assertEquals(200, Scrape.health(endpoint.address()));
      assertEquals("ok\n", Scrape.get(endpoint.address(), "/health").body());
      endpoint.healthy(false); // a graceful stop began: unhealthy while the node still serves
      assertEquals(503, Scrape.health(endpoint.address()));
    }
  }

  @Test
  void everyMeterOfTheStorageEngine_isExported_noneRefused(@TempDir Path dir) throws Exception {
    try (MetricsEndpoint endpoint =
            MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        LsmEngine engine =
            LsmEngine.open(
                LsmConfig.builder(dir).build(), NioFileSystem.INSTANCE, endpoint.registry())) {
      engine.write(Cell.promise(Key.of(new byte[] {1}), new Ballot(1, 1, 1), 0)).join();
      assertEquals(List.of(), endpoint.registrationFailures());
      assertEquals(List.of(), Scrape.metersMissing(endpoint));
    }
  }

  @Test
  void aMeterWhosePrometheusNameIsTaken_isReported_notSilentlyDropped() throws Exception {
    try (MetricsEndpoint endpoint =
        MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      // The clash frsm.lsm.writes.held.total had with the gauge frsm.lsm.writes.held: a counter's
      // Prometheus name drops ".total" and then takes the gauge's.
      Gauge.builder("clash.held", () -> 1).register(endpoint.registry());
      Counter.builder("clash.held.total").register(endpoint.registry()).increment();
      List<String> failures = endpoint.registrationFailures();
      assertEquals(1, failures.size(), failures.toString());
      assertTrue(failures.get(0).startsWith("clash.held.total "), failures.get(0));
      assertFalse(Scrape.of(endpoint.address()).text().contains("clash_held_total"));
    }
  }
}
