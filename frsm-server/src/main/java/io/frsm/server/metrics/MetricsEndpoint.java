package io.frsm.server.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The node's Prometheus scrape endpoint: {@code GET /metrics} in the Prometheus text format, {@code
 * GET /health} answering 200 while the node serves ({@link #servingCheck}) and 503 otherwise. The
 * node's and its storage engine's meters register in {@link #registry()} (docs/OPERATIONS.md
 * "Metrics and health"); JVM meters are bound too. One small HTTP thread.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final HttpServer server;
  private final ExecutorService executor;
  private final JvmGcMetrics gcMetrics;
  private volatile boolean healthy = true;
  private volatile BooleanSupplier serving = () -> true;

  private MetricsEndpoint(
      PrometheusMeterRegistry registry,
      HttpServer server,
      ExecutorService executor,
      JvmGcMetrics gcMetrics) {
    this.registry = registry;
    this.server = server;
    this.executor = executor;
    this.gcMetrics = gcMetrics;
  }

  /** Binds {@code address} (port 0 = ephemeral) and starts serving. */
  public static MetricsEndpoint start(InetSocketAddress address) throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    HttpServer server = HttpServer.create(address, 16);
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-metrics-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    MetricsEndpoint endpoint = new MetricsEndpoint(registry, server, executor, gc);
    server.createContext("/metrics", endpoint::scrape);
    server.createContext("/health", endpoint::health);
    server.start();
    return endpoint;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  /**
   * While false, {@code /health} answers 503 whatever the serving check says: set it before a
   * graceful stop starts draining, so load balancers and orchestrators stop sending work first.
   */
  public void healthy(boolean value) {
    healthy = value;
  }

  /**
   * What {@code /health} asks on every request (cheap, any thread): whether the node serves. Until
   * set, only {@link #healthy} decides.
   */
  public void servingCheck(BooleanSupplier check) {
    serving = Objects.requireNonNull(check, "check");
  }

  private void scrape(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      respond(exchange, 405, "GET only\n");
      return;
    }
    respond(exchange, 200, registry.scrape());
  }

  private void health(HttpExchange exchange) throws IOException {
    boolean ok = healthy && serving.getAsBoolean();
    respond(exchange, ok ? 200 : 503, ok ? "ok\n" : "unavailable\n");
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    gcMetrics.close();
    registry.close();
  }
}
